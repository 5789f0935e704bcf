import MediaCore
import RTCP
import RTP
import Transport

extension SendLoop {
    /// SR + SDES CNAME (RFC 3550 §6.4.1, §6.5), with BYE (§6.6) when the stream ends. The SR's
    /// NTP time is remembered with our send time, so that receiver reports give the RTT.
    func sendReport(bye: Bool, nowNs: Int64) {
        let ntpTimestamp = NTPTimestamp.now()
        let report = RTCPSenderReport(
            ssrc: stream.ssrc, ntpTimestamp: ntpTimestamp, rtpTimestamp: stream.clock.rtpTimestamp(forNs: nowNs),
            packetCount: UInt32(truncatingIfNeeded: senderPacketCount), octetCount: UInt32(truncatingIfNeeded: senderOctetCount))
        let compound = RTCPCompoundPacket.senderReport(
            report, cname: configuration.cname, bye: bye ? RTCPBye(ssrcs: [stream.ssrc]) : nil)
        do {
            var length = try compound.serialize(into: reportBuffer)
            if let protection { length = try protection.protectRTCP(reportBuffer, length: length) }
            if pathway.sendControl(UnsafeRawBufferPointer(rebasing: reportBuffer[0..<length])) {
                roundTripTime.senderReportSent(middleBits: ntpTimestamp.middle32Bits, atNs: nowNs)
                reporter.report(.overheadSent(packets: 1, bytes: length))
            }
        } catch {
            logger.info("RTCP sender report not sent: \(error)")
        }
    }
}
