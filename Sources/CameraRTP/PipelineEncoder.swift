import Logging
import MediaCore
import VP8

/// The pipeline's encoder: one VP8 stream, or a simulcast set of two or three
/// (`PipelineConfiguration.simulcast`).
enum PipelineEncoder: Sendable {
    case single(VP8Encoder)
    case simulcast(VP8SimulcastEncoder)

    init(configuration: PipelineConfiguration, format: VP8PictureFormat, logger: Logger) throws(VPXError) {
        if configuration.simulcast > 1 {
            self = .simulcast(try VP8SimulcastEncoder(
                settings: configuration.encoder, format: format, encodings: configuration.simulcast, logger: logger))
        } else {
            self = .single(try VP8Encoder(settings: configuration.encoder, format: format, logger: logger))
        }
    }

    /// Encodes one picture and hands each frame it makes to `deliver`, lowest encoding first,
    /// with whether any of the picture's frames is a keyframe; returns how many there were (0:
    /// rate control dropped the picture).
    func encode(_ frame: VideoFrame, deliver: (EncodedFrame, _ pictureHasKeyframe: Bool) throws -> Void) throws -> Int {
        switch self {
        case .single(let encoder):
            guard let encoded = try encoder.encode(frame) else { return 0 }
            try deliver(encoded, encoded.isKeyframe)
            return 1
        case .simulcast(let encoder):
            let encoded = try encoder.encode(frame)
            let hasKeyframe = encoded.contains { $0.isKeyframe }
            for frame in encoded { try deliver(frame, hasKeyframe) }
            return encoded.count
        }
    }

    func requestKeyframe() {
        switch self {
        case .single(let encoder): encoder.requestKeyframe()
        case .simulcast(let encoder): encoder.requestKeyframe()
        }
    }

    func requestKeyframe(encodingIndex: Int) {
        switch self {
        case .single(let encoder): encoder.requestKeyframe()
        case .simulcast(let encoder): encoder.requestKeyframe(encodingIndex: encodingIndex)
        }
    }

    func setActiveEncodings(_ encodings: Set<Int>) {
        if case .simulcast(let encoder) = self { encoder.setActiveEncodings(encodings) }
    }

    /// The total target; a simulcast encoder shares it out among its encodings.
    func setBitrate(kbps: Int) {
        switch self {
        case .single(let encoder): encoder.setBitrate(kbps: kbps)
        case .simulcast(let encoder): encoder.setBitrate(kbps: kbps)
        }
    }

    var targetBitrateKbps: Int {
        switch self {
        case .single(let encoder): encoder.targetBitrateKbps
        case .simulcast(let encoder): encoder.targetBitrateKbps
        }
    }
}
