import CV4L2

/// An ioctl request code with the name errors print.
public struct V4L2Request: Sendable, Hashable, CustomStringConvertible {
    public let code: UInt
    public let name: String

    public var description: String { name }

    public static let querycap = V4L2Request(code: CAMRTP_VIDIOC_QUERYCAP, name: "VIDIOC_QUERYCAP")
    public static let enumFormat = V4L2Request(code: CAMRTP_VIDIOC_ENUM_FMT, name: "VIDIOC_ENUM_FMT")
    public static let enumFrameSizes = V4L2Request(code: CAMRTP_VIDIOC_ENUM_FRAMESIZES, name: "VIDIOC_ENUM_FRAMESIZES")
    public static let enumFrameIntervals = V4L2Request(code: CAMRTP_VIDIOC_ENUM_FRAMEINTERVALS, name: "VIDIOC_ENUM_FRAMEINTERVALS")
    public static let getFormat = V4L2Request(code: CAMRTP_VIDIOC_G_FMT, name: "VIDIOC_G_FMT")
    public static let setFormat = V4L2Request(code: CAMRTP_VIDIOC_S_FMT, name: "VIDIOC_S_FMT")
    public static let getParameters = V4L2Request(code: CAMRTP_VIDIOC_G_PARM, name: "VIDIOC_G_PARM")
    public static let setParameters = V4L2Request(code: CAMRTP_VIDIOC_S_PARM, name: "VIDIOC_S_PARM")
    public static let requestBuffers = V4L2Request(code: CAMRTP_VIDIOC_REQBUFS, name: "VIDIOC_REQBUFS")
    public static let queryBuffer = V4L2Request(code: CAMRTP_VIDIOC_QUERYBUF, name: "VIDIOC_QUERYBUF")
    public static let queueBuffer = V4L2Request(code: CAMRTP_VIDIOC_QBUF, name: "VIDIOC_QBUF")
    public static let dequeueBuffer = V4L2Request(code: CAMRTP_VIDIOC_DQBUF, name: "VIDIOC_DQBUF")
    public static let streamOn = V4L2Request(code: CAMRTP_VIDIOC_STREAMON, name: "VIDIOC_STREAMON")
    public static let streamOff = V4L2Request(code: CAMRTP_VIDIOC_STREAMOFF, name: "VIDIOC_STREAMOFF")
    public static let queryControl = V4L2Request(code: CAMRTP_VIDIOC_QUERYCTRL, name: "VIDIOC_QUERYCTRL")
    public static let queryMenu = V4L2Request(code: CAMRTP_VIDIOC_QUERYMENU, name: "VIDIOC_QUERYMENU")
    public static let getControl = V4L2Request(code: CAMRTP_VIDIOC_G_CTRL, name: "VIDIOC_G_CTRL")
    public static let setControl = V4L2Request(code: CAMRTP_VIDIOC_S_CTRL, name: "VIDIOC_S_CTRL")
}
