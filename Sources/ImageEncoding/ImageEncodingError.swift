import FrameProcessing

/// A still picture that could not be encoded: the operation, the library's code and its text.
public enum ImageEncodingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A JPEG quality outside `ImageEncoder.qualityRange`.
    case invalidQuality(Int)
    /// The I420 → RGB conversion failed.
    case conversion(operation: String, code: Int32, detail: String)
    /// A TurboJPEG call failed (`tjGetErrorCode`, `tjGetErrorStr2`).
    case turboJPEG(operation: String, code: Int32, message: String)
    /// A libpng simplified-API call failed (`png_image.warning_or_error`, `png_image.message`).
    case png(operation: String, code: UInt32, message: String)

    init(_ error: LibyuvError) {
        self = .conversion(operation: error.operation, code: error.code, detail: error.detail)
    }

    public var description: String {
        switch self {
        case .invalidQuality(let quality):
            "ImageEncodingError: quality \(quality) is outside \(ImageEncoder.qualityRange.lowerBound)...\(ImageEncoder.qualityRange.upperBound)"
        case .conversion(let operation, let code, let detail):
            "ImageEncodingError: libyuv \(operation) failed: \(detail) (code \(code))"
        case .turboJPEG(let operation, let code, let message):
            "ImageEncodingError: TurboJPEG \(operation) failed: \(message) (code \(code))"
        case .png(let operation, let code, let message):
            "ImageEncodingError: libpng \(operation) failed: \(message) (code \(code))"
        }
    }
}
