import SDP
import Testing

/// abs-capture-time, the playout delay and receiver reference time reports in offers and
/// answers, against the descriptions Chromium 156 writes.
@Suite struct LatencyNegotiationTests {
    typealias Setup = NegotiationSetup
    static let absoluteCaptureTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    static let playoutDelay = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

    /// The publisher and server of `NegotiationSetup`, writing both extensions too.
    static var latencySender: LocalVideoSender {
        var sender = Setup.sender
        sender.extensions = [
            HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime), HeaderExtensionMapping(id: 3, uri: transportWideCC),
            HeaderExtensionMapping(id: 9, uri: absoluteCaptureTime), HeaderExtensionMapping(id: 12, uri: playoutDelay),
            HeaderExtensionMapping(id: 13, uri: Setup.videoOrientation),
        ]
        return sender
    }

    static var latencyServer: VideoNegotiator {
        var server = Setup.server
        server.sender = latencySender
        return server
    }

    static var latencyPublisher: VideoNegotiator {
        var publisher = Setup.publisher
        publisher.sender = latencySender
        return publisher
    }

    /// Chromium offers abs-capture-time only when the page turns it on; it always offers the
    /// playout delay and rcvr-rtt. The answer takes Chromium's IDs for both and says rcvr-rtt=all.
    @Test func aViewerThatOffersBothGetsBothUnderItsIDs() throws {
        let answer = try Self.latencyServer.makeAnswer(to: Setup.parse(.chromiumRecvonlyOfferWithCaptureTime))
        #expect(answer.video.extensions == [
            HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime), HeaderExtensionMapping(id: 3, uri: Setup.videoOrientation),
            HeaderExtensionMapping(id: 4, uri: transportWideCC), HeaderExtensionMapping(id: 5, uri: Self.playoutDelay),
            HeaderExtensionMapping(id: 13, uri: Self.absoluteCaptureTime),
        ])
        let lines = answer.sessionDescription.lines()
        #expect(lines.contains("a=extmap:5 \(Self.playoutDelay)") && lines.contains("a=extmap:13 \(Self.absoluteCaptureTime)"))
        #expect(lines.contains("a=rtcp-xr:rcvr-rtt=all"))
    }

    @Test func aViewerThatDoesNotOfferCaptureTimeGetsNone() throws {
        let answer = try Self.latencyServer.makeAnswer(to: Setup.parse(.chromiumRecvonlyOffer))
        #expect(answer.video.extensions.map(\.uri).contains(Self.playoutDelay))
        #expect(!answer.video.extensions.map(\.uri).contains(Self.absoluteCaptureTime))
        #expect(!answer.sessionDescription.lines().contains { $0.contains("abs-capture-time") })
    }

    @Test func aSenderThatWritesNeitherAnswersNeither() throws {
        let answer = try Setup.server.makeAnswer(to: Setup.parse(.chromiumRecvonlyOfferWithCaptureTime))
        #expect(!answer.sessionDescription.lines().contains { $0.contains("abs-capture-time") || $0.contains("playout-delay") })
    }

    /// RFC 3611 §5.1: without rcvr-rtt in the offer, the answer has no a=rtcp-xr; `rcvr-rtt=sender`
    /// leaves out receivers that send nothing, so it does not count either.
    @Test func receiverReferenceTimeReportsOnlyWhenOfferedForEveryone() throws {
        let aiortc = try Self.latencyServer.makeAnswer(to: Setup.parse(.aiortcRecvonlyOffer))
        #expect(!aiortc.sessionDescription.lines().contains { $0.hasPrefix("a=rtcp-xr") })
        for (value, answered) in [("rcvr-rtt=sender", false), ("rcvr-rtt=all:10000", true), ("pkt-loss-rle rcvr-rtt=all", true)] {
            var offer = try Setup.parse(.chromiumRecvonlyOffer)
            offer.media[0].otherAttributes.removeAll { $0.name == "rtcp-xr" }
            offer.media[0].otherAttributes.append(Attribute(name: "rtcp-xr", value: value))
            let lines = try Self.latencyServer.makeAnswer(to: offer).sessionDescription.lines()
            #expect(lines.contains("a=rtcp-xr:rcvr-rtt=all") == answered, "\(value)")
        }
    }

    /// Our offer lists both with our IDs and rcvr-rtt; Chromium's answer keeps them.
    @Test func chromiumAcceptsOurOffer() throws {
        let offer = Self.latencyPublisher.makeOffer()
        let lines = offer.lines()
        #expect(lines.contains("a=extmap:9 \(Self.absoluteCaptureTime)") && lines.contains("a=extmap:12 \(Self.playoutDelay)"))
        #expect(lines.contains("a=rtcp-xr:rcvr-rtt=all"))
        let video = try Self.latencyPublisher.acceptAnswer(Setup.parse(.chromiumAnswerToCamrtpLatencyOffer), to: offer)
        #expect(video.extensions == [
            HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime), HeaderExtensionMapping(id: 13, uri: Setup.videoOrientation),
            HeaderExtensionMapping(id: 3, uri: transportWideCC), HeaderExtensionMapping(id: 12, uri: Self.playoutDelay),
            HeaderExtensionMapping(id: 9, uri: Self.absoluteCaptureTime),
        ])
    }
}
