import TestSupport
import Testing
@testable import RTP

/// abs-capture-time (webrtc.org/experiments/rtp-hdrext/abs-capture-time): the 8-byte timestamp
/// and the optional 8-byte signed offset, both Q32.32, big-endian.
@Suite struct AbsoluteCaptureTimeTests {
    @Test func timestampAndOffsetAreBigEndianQ32x32() throws {
        // 2023-11-14 22:13:20.5 UTC: 3 908 988 800 s since 1900 (0xE8FE_6F80), half a second 0x8000_0000;
        // the offset is -1.25 s.
        let value = AbsoluteCaptureTime(captureTimestamp: 0xE8FE_6F80_8000_0000, estimatedCaptureClockOffset: -0x1_4000_0000)
        #expect(value.serializedSize == 16)
        #expect(value.serialized() == bytes("e8fe6f80 80000000 fffffffe c0000000"))
        #expect(try AbsoluteCaptureTime(parsing: bytes("e8fe6f80 80000000 fffffffe c0000000")) == value)
    }

    @Test func withoutOffsetItIsEightBytes() throws {
        let value = AbsoluteCaptureTime(captureTimestamp: 0x0102_0304_0506_0708)
        #expect(value.serialized() == bytes("01020304 05060708"))
        #expect(try AbsoluteCaptureTime(parsing: bytes("01020304 05060708")) == value)
        let element = try value.element(id: 9)
        #expect(element.count == 8 && element.data == value.serialized())
        #expect(try AbsoluteCaptureTime(element: element) == value)
    }

    @Test func inAHeaderTheElementSaysLen15AndPadsTheBlock() throws {
        let value = AbsoluteCaptureTime(captureTimestamp: 0xE8FE_6F80_8000_0000, estimatedCaptureClockOffset: 0)
        let header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, extensionElements: [try value.element(id: 9)])
        // ID 9, len 15: 17 bytes of elements padded to 20, five words.
        #expect(header.serialized() == bytes("90 60 0001 00000002 00000003 bede 0005 9f e8fe6f80 80000000 00000000 00000000 000000"))
        let parsed = try RTPHeader(parsing: header.serialized())
        #expect(try AbsoluteCaptureTime(element: try #require(parsed.extensionElements.first)) == value)
    }

    @Test(arguments: [0, 1, 7, 9, 15, 17])
    func otherLengthsAreRefused(count: Int) {
        #expect(throws: WireFormatError.self) { try AbsoluteCaptureTime(parsing: [UInt8](repeating: 0, count: count)) }
    }
}

/// playout-delay (webrtc.org/experiments/rtp-hdrext/playout-delay): 12-bit MIN and MAX in 10 ms.
@Suite struct PlayoutDelayTests {
    @Test(arguments: [
        (0, 0, "000000"),
        (0, 400, "000028"),
        (100, 200, "00a014"),
        (40_950, 40_950, "ffffff"),
    ] as [(Int, Int, String)])
    func minAndMaxAreTwelveBitsEach(minimumMs: Int, maximumMs: Int, wire: String) throws {
        let delay = try #require(PlayoutDelay(minimumMs: minimumMs, maximumMs: maximumMs))
        #expect(delay.serialized() == bytes(wire))
        let parsed = try PlayoutDelay(parsing: bytes(wire))
        #expect(parsed == delay && parsed.minimumMs == minimumMs && parsed.maximumMs == maximumMs)
        let element = try delay.element(id: 12)
        #expect(element.data == bytes(wire))
        #expect(try PlayoutDelay(element: element) == delay)
    }

    @Test func aHeaderCarriesItInOneWord() throws {
        let delay = try #require(PlayoutDelay(minimumMs: 0, maximumMs: 400))
        let header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, extensionElements: [try delay.element(id: 12)])
        #expect(header.serialized() == bytes("90 60 0001 00000002 00000003 bede 0001 c2 000028"))
    }

    @Test func valuesOutsideTheFieldOrNotInStepsOrOutOfOrderAreRefused() {
        #expect(PlayoutDelay(minimumMs: 0, maximumMs: 40_960) == nil)
        #expect(PlayoutDelay(minimumMs: -10, maximumMs: 100) == nil)
        #expect(PlayoutDelay(minimumMs: 15, maximumMs: 100) == nil)
        #expect(PlayoutDelay(minimumMs: 200, maximumMs: 100) == nil)
        #expect(PlayoutDelay(minimum: 0, maximum: 0x1000) == nil)
    }

    @Test func aWireValueWithMinAboveMaxOrTheWrongLengthIsRefused() {
        // MIN 20 (200 ms), MAX 10 (100 ms), as libwebrtc's parser refuses it.
        #expect(throws: WireFormatError.self) { try PlayoutDelay(parsing: bytes("01400a")) }
        #expect(throws: WireFormatError.self) { try PlayoutDelay(parsing: bytes("0000")) }
        #expect(throws: WireFormatError.self) { try PlayoutDelay(parsing: bytes("00000000")) }
    }
}
