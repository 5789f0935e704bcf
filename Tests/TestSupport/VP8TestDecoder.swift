import CVPX
import MediaCore

/// libvpx's own VP8 decoder, to check what the encoder produced.
public final class VP8TestDecoder {
    private var context = vpx_codec_ctx_t()

    public init() throws {
        let result = vpx_codec_dec_init_ver(&context, vpx_codec_vp8_dx(), nil, 0, CAMRTP_VPX_DECODER_ABI_VERSION)
        guard result == VPX_CODEC_OK else { throw DecodeError.initFailed(Int(result.rawValue)) }
    }

    deinit {
        vpx_codec_destroy(&context)
    }

    public enum DecodeError: Error {
        case initFailed(Int)
        case decodeFailed(Int)
    }

    /// Decodes one frame into a tightly packed I420 buffer.
    public func decode(_ data: [UInt8]) throws -> I420Buffer? {
        let result = data.withUnsafeBufferPointer {
            vpx_codec_decode(&context, $0.baseAddress, UInt32($0.count), nil, 0)
        }
        guard result == VPX_CODEC_OK else { throw DecodeError.decodeFailed(Int(result.rawValue)) }
        var iterator: vpx_codec_iter_t? = nil
        guard let image = vpx_codec_get_frame(&context, &iterator)?.pointee else { return nil }
        let buffer = I420Buffer(width: Int(image.d_w), height: Int(image.d_h))
        let planes = [(image.planes.0!, image.stride.0, buffer.dataY, buffer.width, buffer.height),
                      (image.planes.1!, image.stride.1, buffer.dataU, buffer.chromaWidth, buffer.chromaHeight),
                      (image.planes.2!, image.stride.2, buffer.dataV, buffer.chromaWidth, buffer.chromaHeight)]
        for (source, stride, destination, width, height) in planes {
            for row in 0..<height {
                (destination + row * width).update(from: source + row * Int(stride), count: width)
            }
        }
        return buffer
    }
}
