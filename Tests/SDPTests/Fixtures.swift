import Foundation

/// The SDP texts under Fixtures/, captured from real stacks (see Fixtures/README.md).
enum Fixture: String, CaseIterable, CustomStringConvertible {
    case chromiumRecvonlyOffer = "chromium-recvonly-offer"
    case chromiumSendrecvOffer = "chromium-sendrecv-offer"
    case chromiumAnswerToCamrtpOffer = "chromium-answer-to-camrtp-offer"
    case chromiumRecvonlyOfferWithCaptureTime = "chromium-recvonly-offer-abs-capture-time"
    case chromiumAnswerToCamrtpLatencyOffer = "chromium-answer-to-camrtp-latency-offer"
    case aiortcOffer = "aiortc-offer"
    case aiortcAnswer = "aiortc-answer"
    case aiortcRecvonlyOffer = "aiortc-recvonly-offer"
    case aiortcAnswerToCamrtpOffer = "aiortc-answer-to-camrtp-offer"
    case janusStreamingOffer = "janus-streaming-offer"
    case janusVideoRoomAnswerToCamrtpSimulcastOffer = "janus-videoroom-answer-to-camrtp-simulcast-offer"

    var description: String { rawValue }

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "fixture \(name).sdp is not in the test bundle" }
    }

    func text() throws -> String {
        guard let url = Bundle.module.url(forResource: rawValue, withExtension: "sdp", subdirectory: "Fixtures") else {
            throw Missing(name: rawValue)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
