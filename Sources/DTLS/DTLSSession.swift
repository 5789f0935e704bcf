import CSSL
import Logging
import Transport
#if canImport(Glibc)
import Glibc
#endif

/// One DTLS 1.2 association for DTLS-SRTP (RFC 5764), driven by datagrams alone: it owns no
/// socket, so it shares the ICE socket with STUN and SRTP (RFC 7983). Hand it the datagrams that
/// `PacketDemultiplexer` classifies as `.dtls`; send what it returns; call `handleTimeout` when
/// `nextTimeoutNs` comes. Once `.connected`, its `DTLSSRTPKeys` feed two `SRTPSession`s.
///
/// The peer's certificate is accepted only when it hashes to the fingerprint of the peer's SDP;
/// self-signed certificates are the norm, so no CA is consulted (RFC 8827 section 6.5). The use_srtp
/// extension offers the suites in preference order (RFC 5764 section 4.1.2); the keys come from
/// `SSL_export_keying_material` with the label `EXTRACTOR-dtls_srtp` (section 4.2).
///
/// Datagrams that are not whole DTLS records, are larger than a DTLS datagram should be, or hold a
/// protected record too short for its AES-GCM nonce and tag are counted in `garbageDatagramCount`
/// and never reach OpenSSL; OpenSSL itself drops records that fail authentication or carry
/// another epoch. Application data (WebRTC data channels) is not supported: it is read and
/// counted, never delivered.
///
/// OpenSSL times retransmissions on the real clock; `nextTimeoutNs` expresses its timer on the
/// caller's clock (the `nowNs` of the last call plus what OpenSSL says is left).
///
/// Owns its `SSL_CTX`, `SSL` and BIO method, freed in `deinit`; used from one thread.
public final class DTLSSession {
    public enum State: Sendable, Hashable {
        case handshaking
        case connected
        /// Closed by us or by the peer's close_notify.
        case closed
        case failed
    }

    /// The suites offered by default, strongest first, among those this libsrtp2 can run: what
    /// browsers offer (AES-GCM, then AES-CM with the 80-bit tag). Probed once, on first use:
    /// asking libsrtp2 takes milliseconds, and the linked library does not change.
    public static let defaultSRTPSuites: [SRTPSuite] =
        [SRTPSuite.aeadAES128GCM, .aesCM128HMACSHA1_80].filter(\.isSupported)
    /// Largest datagram on ICE paths (what libwebrtc and Janus use): IPv6's 1280-byte minimum MTU
    /// less headers and TURN framing.
    public static let defaultMTU = 1_200
    /// Larger datagrams are dropped unread, as libwebrtc does: no WebRTC peer sends DTLS datagrams
    /// beyond its path MTU.
    public static let maximumDatagramBytes = 2_048

    public let role: Role
    public private(set) var state: State = .handshaking
    /// The keys once `.connected`.
    public private(set) var srtpKeys: DTLSSRTPKeys?
    /// Why the session failed, once `.failed`.
    public private(set) var failure: DTLSError?
    /// When to call `handleTimeout`, on the caller's clock; nil while no flight awaits an answer.
    public private(set) var nextTimeoutNs: Int64?

    /// Every datagram handed to `receive`.
    public private(set) var receivedDatagramCount = 0
    /// Datagrams dropped before OpenSSL: not whole DTLS records, too large, or with a protected
    /// record too short to be genuine.
    public private(set) var garbageDatagramCount = 0
    /// Datagrams that arrived after the session closed or failed.
    public private(set) var ignoredDatagramCount = 0
    /// Handshake flights sent again after a timeout.
    public private(set) var retransmissionCount = 0
    /// Application data bytes read and thrown away.
    public private(set) var discardedApplicationDataBytes = 0

    private let context: OpaquePointer  // SSL_CTX *
    private let ssl: OpaquePointer  // SSL *
    private let incoming: OpaquePointer  // BIO *, owned by ssl
    private let bioMethod: OpaquePointer  // BIO_METHOD *
    private let callbacks: DTLSCallbackContext
    private var scratch = [UInt8](repeating: 0, count: DTLSSession.maximumDatagramBytes)
    private let logger: Logger

    /// - Parameters:
    ///   - role: from the SDP negotiation (`NegotiatedVideo.localDTLSRole`).
    ///   - remoteFingerprint: the peer's `a=fingerprint`.
    ///   - srtpSuites: offered in preference order; each must have a DTLS-SRTP profile.
    ///   - mtu: the largest datagram this side sends.
    public init(
        role: Role,
        certificate: DTLSCertificate,
        remoteFingerprint: DTLSFingerprint,
        srtpSuites: [SRTPSuite] = DTLSSession.defaultSRTPSuites,
        mtu: Int = DTLSSession.defaultMTU,
        retransmission: DTLSRetransmissionSchedule = DTLSRetransmissionSchedule(),
        logger: Logger = Logger(label: "camrtp.dtls")
    ) throws(DTLSError) {
        let operation = "set up the DTLS session"
        let profiles = try Self.profileList(srtpSuites)
        guard (256...Self.maximumDatagramBytes).contains(mtu) else {
            throw DTLSError(operation, .invalidConfiguration("MTU \(mtu) is outside 256…\(Self.maximumDatagramBytes)"))
        }
        let minimumMs = DTLSRetransmissionSchedule.minimumMs
        let ceilingMs = DTLSRetransmissionSchedule.ceilingMs
        guard retransmission.initialMs >= minimumMs, retransmission.maximumMs >= retransmission.initialMs,
            retransmission.maximumMs <= ceilingMs
        else {
            throw DTLSError(
                operation,
                .invalidConfiguration("retransmission waits \(retransmission.initialMs)…\(retransmission.maximumMs) ms "
                    + "must satisfy \(minimumMs) ≤ initial ≤ maximum ≤ \(ceilingMs)"))
        }

        ERR_clear_error()
        guard let context = SSL_CTX_new(DTLS_method()) else { throw DTLSError.openSSL("SSL_CTX_new") }
        let callbacks = DTLSCallbackContext(schedule: retransmission, expectedFingerprint: remoteFingerprint)
        do {
            try Self.configure(context, certificate: certificate, profiles: profiles, callbacks: callbacks)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw DTLSError.openSSL("SSL_new")
        }
        let method = DTLSCallbackContext.makeDatagramBIOMethod()
        let incoming = BIO_new(BIO_s_mem())
        let outgoing = method.flatMap { BIO_new($0) }
        guard let method, let incoming, let outgoing else {
            let error = DTLSError.openSSL("create the DTLS BIOs")
            BIO_free(incoming)
            BIO_free(outgoing)
            BIO_meth_free(method)
            SSL_free(ssl)
            SSL_CTX_free(context)
            throw error
        }
        camrtp_BIO_set_mem_eof_return(incoming, -1)
        BIO_set_data(outgoing, callbacks.pointer)
        BIO_set_init(outgoing, 1)
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_ex_data(ssl, 0, callbacks.pointer)
        DTLS_set_timer_cb(ssl, DTLSCallbackContext.timerCallback)
        guard camrtp_SSL_set_mtu(ssl, mtu) == mtu else {
            let error = DTLSError.openSSL("SSL_set_mtu \(mtu)")
            SSL_free(ssl)
            SSL_CTX_free(context)
            BIO_meth_free(method)
            throw error
        }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }

        self.role = role
        self.context = context
        self.ssl = ssl
        self.incoming = incoming
        self.bioMethod = method
        self.callbacks = callbacks
        self.logger = logger
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
        BIO_meth_free(bioMethod)
    }

    /// Begins the handshake: a client sends its ClientHello, a server waits for one (it may also
    /// just start receiving).
    public func start(nowNs: Int64) -> DTLSOutput {
        guard state == .handshaking else { return DTLSOutput() }
        logger.debug("DTLS handshake starting", metadata: ["role": "\(role)"])
        return advance(nowNs: nowNs)
    }

    /// Feeds one datagram from the peer, one that `PacketDemultiplexer` sorts as `.dtls`. `nowNs`
    /// (the caller's clock) dates a retransmission timer the datagram may start.
    public func receive(_ datagram: UnsafeRawBufferPointer, nowNs: Int64) -> DTLSOutput {
        receivedDatagramCount += 1
        guard state == .handshaking || state == .connected else {
            ignoredDatagramCount += 1
            return DTLSOutput()
        }
        guard datagram.count <= Self.maximumDatagramBytes, Self.holdsOnlyPlausibleRecords(datagram),
            let base = datagram.baseAddress
        else {
            garbageDatagramCount += 1
            return DTLSOutput()
        }
        guard BIO_write(incoming, base, Int32(datagram.count)) == Int32(datagram.count) else {
            return fail(DTLSError.openSSL("BIO_write to the DTLS read buffer"))
        }
        return advance(nowNs: nowNs)
    }

    /// Feeds one datagram from the peer.
    public func receive(_ datagram: [UInt8], nowNs: Int64) -> DTLSOutput {
        datagram.withUnsafeBytes { receive($0, nowNs: nowNs) }
    }

    /// Retransmits the last flight if its timer has run out by `nowNs`; nothing otherwise. After
    /// OpenSSL's 12th retransmission the session fails with a `.failed` event.
    public func handleTimeout(nowNs: Int64) -> DTLSOutput {
        guard state == .handshaking || state == .connected, let deadline = nextTimeoutNs, nowNs >= deadline else {
            return DTLSOutput()
        }
        ERR_clear_error()
        let result = camrtp_DTLSv1_handle_timeout(ssl)
        if result < 0 {
            return fail(DTLSError.openSSL("retransmit the DTLS flight"))
        }
        if result > 0 {
            retransmissionCount += 1
            logger.debug("DTLS flight retransmitted", metadata: ["role": "\(role)", "count": "\(retransmissionCount)"])
        }
        updateTimer(nowNs: nowNs)
        return DTLSOutput(datagrams: callbacks.takeOutgoingDatagrams())
    }

    /// Ends the association: sends close_notify when connected (RFC 5246 section 7.2.1) and
    /// ignores everything afterwards.
    public func close() -> DTLSOutput {
        let wasConnected = state == .connected
        guard state == .handshaking || wasConnected else { return DTLSOutput() }
        state = .closed
        nextTimeoutNs = nil
        if wasConnected {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        logger.debug("DTLS session closed", metadata: ["role": "\(role)"])
        return DTLSOutput(datagrams: callbacks.takeOutgoingDatagrams())
    }

    // MARK: - Driving OpenSSL

    /// Runs the handshake or reads records until OpenSSL wants more input, then collects output.
    private func advance(nowNs: Int64) -> DTLSOutput {
        ERR_clear_error()
        var events: [DTLSEvent] = []
        if state == .handshaking {
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                do throws(DTLSError) {
                    let keys = try completeHandshake()
                    events.append(.connected(keys))
                } catch {
                    return fail(error, events: events)
                }
            } else if let error = handshakeError(result) {
                return fail(error, events: events)
            }
        }
        if state == .connected, let error = drainRecords(events: &events) {
            return fail(error, events: events)
        }
        // Whatever OpenSSL left unread of this datagram is dropped: one datagram, bounded work.
        _ = camrtp_BIO_reset(incoming)
        updateTimer(nowNs: nowNs)
        return DTLSOutput(datagrams: callbacks.takeOutgoingDatagrams(), events: events)
    }

    /// Nil while the handshake merely waits for input.
    private func handshakeError(_ result: Int32) -> DTLSError? {
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return nil }
        let operation = "DTLS handshake as \(role)"
        if let actual = callbacks.rejectedFingerprint {
            ERR_clear_error()
            return DTLSError(operation, .fingerprintMismatch(expected: callbacks.expectedFingerprint, actual: actual))
        }
        return DTLSError.openSSL(operation, sslError: code)
    }

    /// Checks what the handshake agreed and exports the SRTP keys.
    private func completeHandshake() throws(DTLSError) -> DTLSSRTPKeys {
        let operation = "DTLS handshake as \(role)"
        guard callbacks.peerCertificateMatched else {
            throw DTLSError(operation, .peerCertificateMissing)
        }
        guard let profile = SSL_get_selected_srtp_profile(ssl), let suite = SRTPSuite(dtlsProfileID: profile.pointee.id)
        else {
            throw DTLSError(operation, .noCommonSRTPProfile)
        }
        var material = [UInt8](repeating: 0, count: DTLSSRTPKeys.exportedLength(for: suite))
        defer { for index in material.indices { material[index] = 0 } }
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            throw DTLSError.openSSL("SSL_export_keying_material \(label)")
        }
        let keys = try DTLSSRTPKeys(suite: suite, exportedMaterial: material, role: role)
        state = .connected
        srtpKeys = keys
        logger.info("DTLS connected", metadata: ["role": "\(role)", "suite": "\(suite.sdpName)"])
        return keys
    }

    /// Reads what the datagram holds after the handshake: application data (discarded), the
    /// peer's close_notify, or its retransmitted flight, which OpenSSL answers by resending ours.
    /// One read per record at most, since each `SSL_read` returns data of one record.
    private func drainRecords(events: inout [DTLSEvent]) -> DTLSError? {
        let maximumReads = Self.maximumDatagramBytes / DTLSRecordHeader.size + 1
        for _ in 0..<maximumReads {
            let result = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if result > 0 {
                discardedApplicationDataBytes += Int(result)
                continue
            }
            let sslError = SSL_get_error(ssl, result)
            switch sslError {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return nil
            case SSL_ERROR_ZERO_RETURN:
                _ = SSL_shutdown(ssl)
                ERR_clear_error()
                state = .closed
                nextTimeoutNs = nil
                events.append(.closedByPeer)
                logger.info("DTLS peer sent close_notify", metadata: ["role": "\(role)"])
                return nil
            default:
                return DTLSError.openSSL("read DTLS records", sslError: sslError)
            }
        }
        return nil
    }

    private func fail(_ error: DTLSError, events: [DTLSEvent] = []) -> DTLSOutput {
        state = .failed
        failure = error
        nextTimeoutNs = nil
        _ = camrtp_BIO_reset(incoming)
        logger.info("DTLS failed", metadata: ["role": "\(role)", "error": "\(error)"])
        // A fatal alert OpenSSL queued still goes out, so that the peer stops too.
        return DTLSOutput(datagrams: callbacks.takeOutgoingDatagrams(), events: events + [.failed(error)])
    }

    private func updateTimer(nowNs: Int64) {
        var remaining = timeval()
        guard state == .handshaking || state == .connected, camrtp_DTLSv1_get_timeout(ssl, &remaining) == 1 else {
            nextTimeoutNs = nil
            return
        }
        nextTimeoutNs = nowNs + Int64(remaining.tv_sec) * 1_000_000_000 + Int64(remaining.tv_usec) * 1_000
    }

    /// Whether `datagram` is one or more whole DTLS records, each protected record (epoch 1 on)
    /// long enough to hold the AES-GCM explicit nonce and tag. OpenSSL 3.0 fails the whole
    /// association on a shorter record in the current epoch instead of dropping it.
    private static func holdsOnlyPlausibleRecords(_ datagram: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < datagram.count {
            guard let header = try? DTLSRecordHeader(parsing: UnsafeRawBufferPointer(rebasing: datagram[offset...])),
                header.epoch == 0 || header.length >= minimumProtectedRecordLength
            else { return false }
            offset += DTLSRecordHeader.size + header.length
        }
        return offset > 0
    }

    // MARK: - Configuration

    /// The AEAD suites RFC 8827 section 6.5 asks of WebRTC endpoints (and browsers choose): ECDHE
    /// with AES-GCM, for ECDSA or RSA certificates. CBC suites are left out.
    private static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384",
    ].joined(separator: ":")
    /// A GCM record carries an 8-byte explicit nonce and a 16-byte tag (RFC 5288 section 3).
    private static let minimumProtectedRecordLength = 8 + 16

    /// `SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80` for OpenSSL, from the suites.
    private static func profileList(_ suites: [SRTPSuite]) throws(DTLSError) -> String {
        guard !suites.isEmpty else {
            throw DTLSError("set up the DTLS session", .invalidConfiguration("offer at least one SRTP suite"))
        }
        var names: [String] = []
        for suite in suites {
            guard let name = suite.dtlsProfileName else {
                throw DTLSError("set up the DTLS session", .suiteWithoutDTLSProfile(suite))
            }
            names.append(name)
        }
        return names.joined(separator: ":")
    }

    private static func configure(
        _ context: OpaquePointer, certificate: DTLSCertificate, profiles: String, callbacks: DTLSCallbackContext
    ) throws(DTLSError) {
        guard camrtp_SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1,
            camrtp_SSL_CTX_set_max_proto_version(context, DTLS1_2_VERSION) == 1
        else { throw DTLSError.openSSL("restrict the DTLS session to DTLS 1.2") }
        guard SSL_CTX_set_cipher_list(context, cipherList) == 1 else {
            throw DTLSError.openSSL("SSL_CTX_set_cipher_list")
        }
        // Our own MTU, no session resumption (a fresh certificate per call), no renegotiation.
        SSL_CTX_set_options(
            context, CAMRTP_SSL_OP_NO_QUERY_MTU | CAMRTP_SSL_OP_NO_TICKET | CAMRTP_SSL_OP_NO_RENEGOTIATION)
        camrtp_SSL_CTX_disable_session_cache(context)
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1,
            SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1,
            SSL_CTX_check_private_key(context) == 1
        else { throw DTLSError.openSSL("use the DTLS certificate") }
        // Zero means success for this one call.
        guard SSL_CTX_set_tlsext_use_srtp(context, profiles) == 0 else {
            throw DTLSError.openSSL("SSL_CTX_set_tlsext_use_srtp \(profiles)")
        }
        // Both sides demand the other's certificate: the server asks for the client's.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        SSL_CTX_set_cert_verify_callback(context, DTLSCallbackContext.verifyCallback, callbacks.pointer)
    }
}
