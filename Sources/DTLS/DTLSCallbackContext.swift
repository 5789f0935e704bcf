import CSSL

/// What the C callbacks of one session need, reached through an unretained pointer. OpenSSL calls
/// them synchronously from inside the session's own calls, so they run on the session's thread
/// while the session (which owns this object) is alive.
final class DTLSCallbackContext {
    let schedule: DTLSRetransmissionSchedule
    let expectedFingerprint: DTLSFingerprint
    /// Each write to the outgoing BIO: one datagram apiece.
    var outgoingDatagrams: [[UInt8]] = []
    /// Set when the peer's certificate hashed to `expectedFingerprint`.
    var peerCertificateMatched = false
    /// The peer certificate's fingerprint when it did not match.
    var rejectedFingerprint: DTLSFingerprint?

    init(schedule: DTLSRetransmissionSchedule, expectedFingerprint: DTLSFingerprint) {
        self.schedule = schedule
        self.expectedFingerprint = expectedFingerprint
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> DTLSCallbackContext? {
        pointer.map { Unmanaged<DTLSCallbackContext>.fromOpaque($0).takeUnretainedValue() }
    }

    func takeOutgoingDatagrams() -> [[UInt8]] {
        defer { outgoingDatagrams = [] }
        return outgoingDatagrams
    }

    /// The `DTLS_timer_cb`: how long to wait before retransmitting, by our schedule.
    static let timerCallback: DTLS_timer_cb = { ssl, previousUs in
        guard let context = DTLSCallbackContext.from(SSL_get_ex_data(ssl, 0)) else { return previousUs }
        return context.schedule.nextWaitUs(after: previousUs)
    }

    /// Replaces chain verification (`SSL_CTX_set_cert_verify_callback`): WebRTC certificates are
    /// self-signed, and the only check that counts is the SDP fingerprint (RFC 8122 section 5).
    static let verifyCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, argument in
        guard let store, let context = DTLSCallbackContext.from(argument), let leaf = X509_STORE_CTX_get0_cert(store),
            let actual = try? DTLSFingerprint(of: leaf, hashFunction: context.expectedFingerprint.hashFunction)
        else { return 0 }
        guard actual == context.expectedFingerprint else {
            context.rejectedFingerprint = actual
            X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
            return 0
        }
        context.peerCertificateMatched = true
        return 1
    }

    /// A write-only BIO method that keeps every write as one datagram. OpenSSL buffers a handshake
    /// flight and flushes it one datagram (at most the MTU) at a time, and writes each record
    /// on its own after the handshake; a plain memory BIO would run the datagrams together.
    static func makeDatagramBIOMethod() -> OpaquePointer? {
        guard let method = BIO_meth_new(BIO_TYPE_SOURCE_SINK, "camrtp DTLS datagrams") else { return nil }
        BIO_meth_set_write(method) { bio, data, length in
            guard let data, length >= 0, let context = DTLSCallbackContext.from(BIO_get_data(bio)) else { return -1 }
            context.outgoingDatagrams.append(Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
            return length
        }
        BIO_meth_set_ctrl(method) { _, command, _, _ in
            command == BIO_CTRL_FLUSH ? 1 : 0
        }
        return method
    }
}
