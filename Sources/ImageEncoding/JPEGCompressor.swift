import CTurboJPEG

/// A TurboJPEG compressor handle. Used from one thread at a time.
final class JPEGCompressor {
    private let handle: tjhandle

    init() throws(ImageEncodingError) {
        guard let handle = tjInitCompress() else {
            throw .turboJPEG(operation: "tjInitCompress", code: -1, message: String(cString: tjGetErrorStr2(nil)))
        }
        self.handle = handle
    }

    deinit {
        tjDestroy(handle)
    }

    /// A baseline JFIF JPEG of `picture` with 4:2:0 chroma at `quality` (1...100). TurboJPEG turns
    /// the RGB into full-range YCbCr, as JFIF defines it.
    func compress(_ picture: RGBPicture, quality: Int) throws(ImageEncodingError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let code = picture.bytes.withUnsafeBufferPointer { pixels in
            tjCompress2(
                handle, pixels.baseAddress, Int32(picture.width), Int32(picture.rowBytes), Int32(picture.height),
                Int32(TJPF_RGB.rawValue), &output, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        // TurboJPEG allocates the output itself (tjAlloc), also when it fails part way.
        defer { tjFree(output) }
        guard code == 0, let output else {
            throw .turboJPEG(operation: "tjCompress2", code: tjGetErrorCode(handle), message: String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
