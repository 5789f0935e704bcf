import CVPX

/// A libvpx call that failed: the operation, libvpx's error code, and its text and detail.
public struct VPXError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32
    public let message: String

    public var description: String { "VPXError: \(operation) failed: \(message) (vpx_codec_err_t \(code))" }

    init(_ operation: String, _ code: vpx_codec_err_t, context: UnsafeMutablePointer<vpx_codec_ctx_t>? = nil) {
        self.operation = operation
        self.code = Int32(code.rawValue)
        var message = String(cString: vpx_codec_err_to_string(code))
        if let context, let detail = vpx_codec_error_detail(context) {
            message += ": " + String(cString: detail)
        }
        self.message = message
    }

    init(_ operation: String, message: String) {
        self.operation = operation
        code = Int32(VPX_CODEC_INVALID_PARAM.rawValue)
        self.message = message
    }
}
