// libyuv for Swift. libyuv has no pkg-config file, so the module map links `yuv` by name.
// Keep C++ interop off: with it on, these extern "C" declarations do not import.
#ifndef CAMRTP_CYUV_SHIM_H
#define CAMRTP_CYUV_SHIM_H

#include <libyuv.h>

// FourCC codes are an enum built with a function-like macro; export the ones we convert from.
static const uint32_t CAMRTP_YUV_FOURCC_I420 = FOURCC_I420;
static const uint32_t CAMRTP_YUV_FOURCC_NV12 = FOURCC_NV12;
static const uint32_t CAMRTP_YUV_FOURCC_NV21 = FOURCC_NV21;
static const uint32_t CAMRTP_YUV_FOURCC_YUY2 = FOURCC_YUY2;
static const uint32_t CAMRTP_YUV_FOURCC_UYVY = FOURCC_UYVY;
static const uint32_t CAMRTP_YUV_FOURCC_MJPG = FOURCC_MJPG;
/// Memory order R, G, B (libyuv calls it RAW).
static const uint32_t CAMRTP_YUV_FOURCC_RAW = FOURCC_RAW;
/// Memory order B, G, R, A (libyuv's little-endian ARGB).
static const uint32_t CAMRTP_YUV_FOURCC_ARGB = FOURCC_ARGB;

#endif
