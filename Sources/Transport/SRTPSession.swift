import CSRTP
import RTP

/// `srtp_init` runs once per process; Swift initializes globals exactly once, thread-safely.
private let libraryInitStatus: UInt32 = srtp_init().rawValue

/// One libsrtp2 session (RFC 3711): protects outbound RTP and RTCP in place, or unprotects inbound.
///
/// Outbound sessions match any SSRC the sender uses (`ssrc_any_outbound`) and allow resending a
/// sequence number with the same payload, which NACK retransmission does (RFC 4585 section 6.2.1).
/// Protection works in the caller's buffer: the packet grows by the suite's trailer (RFC 3711
/// section 3.1), so the buffer must have that much room after it. This side allocates nothing per
/// packet; a libsrtp2 built on NSS (as Debian's is) allocates inside each call, one built on
/// OpenSSL does not.
///
/// Owned by one thread; not `Sendable`. The `srtp_t` is freed in `deinit`.
public final class SRTPSession {
    public enum Direction: Sendable, Hashable {
        case outbound
        case inbound
    }

    /// Tail room that covers any suite with any MKI: what a `RTPPacketBatch` reserves when the suite
    /// is not known in advance.
    public static let maximumTrailerLength = Int(CAMRTP_SRTP_MAX_TRAILER_LEN)

    public let suite: SRTPSuite
    public let direction: Direction
    /// Bytes `protectRTP` adds, as libsrtp2 reports for this session.
    public let rtpTrailerLength: Int
    /// Bytes `protectRTCP` adds, as libsrtp2 reports for this session.
    public let rtcpTrailerLength: Int

    private let session: srtp_t

    /// - Parameter replayWindow: packets the inbound replay list remembers (RFC 3711 section 3.3.2);
    ///   libsrtp2 accepts 64…32768.
    public init(key: SRTPMasterKey, direction: Direction, replayWindow: Int = 1024) throws(SRTPError) {
        precondition((64...32_768).contains(replayWindow), "replay window \(replayWindow) outside 64…32768")
        guard libraryInitStatus == srtp_err_status_ok.rawValue else {
            throw SRTPError("srtp_init", code: libraryInitStatus)
        }
        var policy = srtp_policy_t()
        key.suite.configure(rtp: &policy.rtp, rtcp: &policy.rtcp)
        policy.ssrc = srtp_ssrc_t(type: direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound, value: 0)
        policy.window_size = UInt(replayWindow)
        policy.allow_repeat_tx = direction == .outbound ? 1 : 0
        policy.next = nil

        // libsrtp2 derives the session keys inside srtp_create and keeps no pointer to the master key.
        var material = key.bytes
        var created: srtp_t?
        let status = material.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            defer { policy.key = nil }
            return srtp_create(&created, &policy)
        }
        for index in material.indices { material[index] = 0 }
        guard status == srtp_err_status_ok, let created else {
            let hint = key.suite.isAEAD
                ? "this libsrtp2 may be built without GCM (it needs OpenSSL, NSS or wolfSSL)" : nil
            throw SRTPError("srtp_create for \(key.suite.sdpName)", status: status, detail: hint)
        }
        session = created

        var rtpTrailer: UInt32 = 0
        var rtcpTrailer: UInt32 = 0
        srtp_get_protect_trailer_length(created, 0, 0, &rtpTrailer)
        srtp_get_protect_rtcp_trailer_length(created, 0, 0, &rtcpTrailer)
        self.suite = key.suite
        self.direction = direction
        self.rtpTrailerLength = Int(rtpTrailer)
        self.rtcpTrailerLength = Int(rtcpTrailer)
    }

    deinit {
        srtp_dealloc(session)
    }

    /// Encrypts and authenticates the RTP packet in `buffer[0..<length]` in place (RFC 3711
    /// section 3.3). Returns the SRTP length, `length + rtpTrailerLength`.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform("srtp_protect", buffer, length: length, growth: rtpTrailerLength, srtp_protect)
    }

    /// Encrypts and authenticates the RTCP compound packet in `buffer[0..<length]` in place (RFC 3711
    /// section 3.4). Returns the SRTCP length, `length + rtcpTrailerLength`.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform("srtp_protect_rtcp", buffer, length: length, growth: rtcpTrailerLength, srtp_protect_rtcp)
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` in place. Returns the RTP length.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform("srtp_unprotect", buffer, length: length, growth: 0, srtp_unprotect)
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` in place. Returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform("srtp_unprotect_rtcp", buffer, length: length, growth: 0, srtp_unprotect_rtcp)
    }

    /// Protects every RTP packet of `batch` in its slot. The batch's `tailroom` must be at least
    /// `rtpTrailerLength`. Stops at the first failure; earlier packets stay protected.
    public func protectRTP(in batch: RTPPacketBatch) throws(SRTPError) {
        for index in 0..<batch.count {
            let protectedLength = try protectRTP(batch.slot(at: index), length: batch.length(at: index))
            batch.setLength(protectedLength, at: index)
        }
    }

    private func transform(
        _ operation: String,
        _ buffer: UnsafeMutableRawBufferPointer,
        length: Int,
        growth: Int,
        _ call: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t
    ) throws(SRTPError) -> Int {
        guard length >= 0, length + growth <= buffer.count, let base = buffer.baseAddress else {
            throw SRTPError(operation, status: srtp_err_status_bad_param,
                            detail: "a \(length)-byte packet in a \(buffer.count)-byte buffer; "
                                + "\(growth) bytes must stay free after it")
        }
        var newLength = Int32(length)
        let status = call(session, base, &newLength)
        guard status == srtp_err_status_ok else { throw SRTPError(operation, status: status) }
        return Int(newLength)
    }
}
