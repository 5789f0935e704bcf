import MediaCore

/// Encodes I420 pictures as JPEG or PNG. Both go through full-range RGB: JFIF JPEG and PNG are
/// full range while camera and VP8 pictures are BT.601 limited range, so handing the I420 planes
/// to the JPEG compressor as they are would turn black into grey and white into light grey.
/// Blocking and CPU-bound (milliseconds at 720p): call it from a thread of your own.
public enum ImageEncoder {
    /// JPEG quality when none is given, as most cameras' "fine" setting.
    public static let defaultQuality = 90
    public static let qualityRange = 1...100

    /// Throws for a quality outside `qualityRange`, so that callers can refuse it before capturing.
    public static func validate(quality: Int) throws(ImageEncodingError) {
        guard qualityRange.contains(quality) else { throw .invalidQuality(quality) }
    }

    /// `buffer` as `format`; `quality` (1...100) applies to JPEG, PNG is lossless.
    public static func encode(_ buffer: I420Buffer, as format: ImageFormat, quality: Int = defaultQuality) throws(ImageEncodingError) -> EncodedImage {
        try validate(quality: quality)
        let picture: RGBPicture
        do {
            picture = try RGBPicture(converting: buffer)
        } catch {
            throw ImageEncodingError(error)
        }
        let data = switch format {
        case .jpeg: try JPEGCompressor().compress(picture, quality: quality)
        case .png: try PNGWriter.encode(picture)
        }
        return EncodedImage(format: format, width: buffer.width, height: buffer.height, data: data)
    }
}
