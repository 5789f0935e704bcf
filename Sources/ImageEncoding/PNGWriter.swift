import CPNG

/// PNG through libpng's simplified API, whose `png_image` control block is freed by the write
/// call itself, failed or not: there is no handle to keep.
enum PNGWriter {
    /// An 8-bit RGB PNG of `picture`, written in one pass into a buffer of libpng's upper bound.
    static func encode(_ picture: RGBPicture) throws(ImageEncodingError) -> [UInt8] {
        var image = png_image()
        image.version = CAMRTP_PNG_IMAGE_VERSION
        image.width = UInt32(picture.width)
        image.height = UInt32(picture.height)
        image.format = CAMRTP_PNG_FORMAT_RGB
        let capacity = Int(camrtp_png_image_png_size_max(&image))
        var succeeded: Int32 = 0
        let data = [UInt8](unsafeUninitializedCapacity: capacity) { storage, initialized in
            var size = png_alloc_size_t(capacity)
            succeeded = picture.bytes.withUnsafeBytes { pixels in
                png_image_write_to_memory(&image, storage.baseAddress, &size, 0, pixels.baseAddress, Int32(picture.rowBytes), nil)
            }
            initialized = succeeded != 0 ? Int(size) : 0
        }
        guard succeeded != 0 else {
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .png(operation: "png_image_write_to_memory", code: image.warning_or_error, message: message)
        }
        return data
    }
}
