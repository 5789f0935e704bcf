// libv4l2 and the V4L2 uAPI for Swift. v4l2_open/v4l2_ioctl are variadic and the VIDIOC_* and
// V4L2_PIX_FMT_* values are function-like macros; neither imports, so both are wrapped here.
#ifndef CAMRTP_CV4L2_SHIM_H
#define CAMRTP_CV4L2_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

static inline int camrtp_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int camrtp_v4l2_close(int fd) { return v4l2_close(fd); }
static inline int camrtp_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }
static inline void *camrtp_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    return v4l2_mmap(start, length, prot, flags, fd, offset);
}
static inline int camrtp_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }
static inline void *camrtp_map_failed(void) { return MAP_FAILED; }

// ioctl requests.
static const unsigned long CAMRTP_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CAMRTP_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CAMRTP_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CAMRTP_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CAMRTP_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long CAMRTP_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long CAMRTP_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long CAMRTP_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long CAMRTP_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CAMRTP_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CAMRTP_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long CAMRTP_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long CAMRTP_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long CAMRTP_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long CAMRTP_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long CAMRTP_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long CAMRTP_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long CAMRTP_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long CAMRTP_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long CAMRTP_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long CAMRTP_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;

// Pixel formats.
static const uint32_t CAMRTP_V4L2_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
static const uint32_t CAMRTP_V4L2_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
static const uint32_t CAMRTP_V4L2_PIX_FMT_NV21 = V4L2_PIX_FMT_NV21;
static const uint32_t CAMRTP_V4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const uint32_t CAMRTP_V4L2_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
static const uint32_t CAMRTP_V4L2_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const uint32_t CAMRTP_V4L2_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;
static const uint32_t CAMRTP_V4L2_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;
static const uint32_t CAMRTP_V4L2_PIX_FMT_ABGR32 = V4L2_PIX_FMT_ABGR32;

// Control ids.
static const uint32_t CAMRTP_V4L2_CID_BRIGHTNESS = V4L2_CID_BRIGHTNESS;
static const uint32_t CAMRTP_V4L2_CID_CONTRAST = V4L2_CID_CONTRAST;
static const uint32_t CAMRTP_V4L2_CID_SATURATION = V4L2_CID_SATURATION;
static const uint32_t CAMRTP_V4L2_CID_SHARPNESS = V4L2_CID_SHARPNESS;
static const uint32_t CAMRTP_V4L2_CID_POWER_LINE_FREQUENCY = V4L2_CID_POWER_LINE_FREQUENCY;
static const uint32_t CAMRTP_V4L2_CID_AUTO_WHITE_BALANCE = V4L2_CID_AUTO_WHITE_BALANCE;
static const uint32_t CAMRTP_V4L2_CID_WHITE_BALANCE_TEMPERATURE = V4L2_CID_WHITE_BALANCE_TEMPERATURE;
static const uint32_t CAMRTP_V4L2_CID_EXPOSURE_AUTO = V4L2_CID_EXPOSURE_AUTO;
static const uint32_t CAMRTP_V4L2_CID_EXPOSURE_ABSOLUTE = V4L2_CID_EXPOSURE_ABSOLUTE;
static const uint32_t CAMRTP_V4L2_CID_FOCUS_AUTO = V4L2_CID_FOCUS_AUTO;
static const uint32_t CAMRTP_V4L2_CID_FOCUS_ABSOLUTE = V4L2_CID_FOCUS_ABSOLUTE;
static const uint32_t CAMRTP_V4L2_CID_ZOOM_ABSOLUTE = V4L2_CID_ZOOM_ABSOLUTE;
static const uint32_t CAMRTP_V4L2_CID_FLASH_LED_MODE = V4L2_CID_FLASH_LED_MODE;
static const uint32_t CAMRTP_V4L2_CID_CAMERA_ORIENTATION = V4L2_CID_CAMERA_ORIENTATION;
static const uint32_t CAMRTP_V4L2_CID_CAMERA_SENSOR_ROTATION = V4L2_CID_CAMERA_SENSOR_ROTATION;
static const uint32_t CAMRTP_V4L2_CTRL_FLAG_NEXT_CTRL = V4L2_CTRL_FLAG_NEXT_CTRL;
static const uint32_t CAMRTP_V4L2_CTRL_FLAG_NEXT_COMPOUND = V4L2_CTRL_FLAG_NEXT_COMPOUND;

#endif
