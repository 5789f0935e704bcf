// The MJPEG path of a V4L2 camera: a frame's bytes are whatever the camera (or a device that
// claims to be one) put in the buffer. `PixelConverter` reads the size the JPEG declares and
// decodes it to I420 through libyuv and libjpeg, at the declared size and at a size the stream
// did not declare.
//
// Input: one frame.
//
// libyuv and libjpeg come from the system and are not instrumented: libFuzzer gets no coverage
// from inside them and AddressSanitizer sees only their calls to intercepted functions (memcpy,
// malloc); a wild read or write that faults is still caught.

import FrameProcessing
import FuzzSupport
import MediaCore

/// Declared sizes above this are decoded only at the mismatched size, to keep runs fast.
let maximumDecodedPixels = 640 * 480

/// A stream size no seed declares, for frames that do not match the negotiated format.
let mismatchedSize = (width: 34, height: 18)

func convert(_ sample: UnsafeRawBufferPointer, width: Int, height: Int) {
    let picture = I420Buffer(width: width, height: height)
    _ = try? PixelConverter.convertToI420(sample, format: .mjpeg, width: width, height: height, into: picture)
}

fuzz { sample in
    if let declared = PixelConverter.mjpegSize(sample) {
        fuzzCheck(declared.width >= 0 && declared.height >= 0, "MJPEG: negative size \(declared)")
        if declared.width > 0, declared.height > 0, declared.width * declared.height <= maximumDecodedPixels {
            convert(sample, width: declared.width, height: declared.height)
        }
    }
    convert(sample, width: mismatchedSize.width, height: mismatchedSize.height)
}
