import CSRTP

/// A failed libsrtp2 call: the operation, the `srtp_err_status_t` code and its meaning.
/// Example: `SRTPError: srtp_protect failed: replay check failed (srtp_err_status_replay_fail, 9)`.
public struct SRTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public let operation: String
    /// The raw `srtp_err_status_t` value.
    public let code: UInt32
    /// What went wrong beyond the status, if anything.
    public let detail: String?

    public init(_ operation: String, code: UInt32, detail: String? = nil) {
        self.operation = operation
        self.code = code
        self.detail = detail
    }

    init(_ operation: String, status: srtp_err_status_t, detail: String? = nil) {
        self.init(operation, code: status.rawValue, detail: detail)
    }

    /// True for a packet that failed its integrity check (wrong key, tampering, corruption).
    public var isAuthenticationFailure: Bool { code == srtp_err_status_auth_fail.rawValue }

    public var description: String {
        let (name, text) = Self.names[Int(code), default: ("srtp_err_status_\(code)", "unknown status")]
        let base = "SRTPError: \(operation) failed: \(text) (\(name), \(code))"
        return detail.map { "\(base): \($0)" } ?? base
    }

    /// The meanings libsrtp2's srtp.h documents for each status.
    private static let names: [Int: (String, String)] = [
        0: ("srtp_err_status_ok", "nothing to report"),
        1: ("srtp_err_status_fail", "unspecified failure"),
        2: ("srtp_err_status_bad_param", "unsupported parameter"),
        3: ("srtp_err_status_alloc_fail", "couldn't allocate memory"),
        4: ("srtp_err_status_dealloc_fail", "couldn't deallocate properly"),
        5: ("srtp_err_status_init_fail", "couldn't initialize"),
        6: ("srtp_err_status_terminus", "can't process as much data as requested"),
        7: ("srtp_err_status_auth_fail", "authentication failure"),
        8: ("srtp_err_status_cipher_fail", "cipher failure"),
        9: ("srtp_err_status_replay_fail", "replay check failed"),
        10: ("srtp_err_status_replay_old", "replay check failed (index too old)"),
        11: ("srtp_err_status_algo_fail", "algorithm failed test routine"),
        12: ("srtp_err_status_no_such_op", "unsupported operation"),
        13: ("srtp_err_status_no_ctx", "no appropriate context found"),
        14: ("srtp_err_status_cant_check", "unable to perform desired validation"),
        15: ("srtp_err_status_key_expired", "can't use key any more"),
        16: ("srtp_err_status_socket_err", "error in use of socket"),
        17: ("srtp_err_status_signal_err", "error in use of POSIX signals"),
        18: ("srtp_err_status_nonce_bad", "nonce check failed"),
        19: ("srtp_err_status_read_fail", "couldn't read data"),
        20: ("srtp_err_status_write_fail", "couldn't write data"),
        21: ("srtp_err_status_parse_err", "error parsing data"),
        22: ("srtp_err_status_encode_err", "error encoding data"),
        23: ("srtp_err_status_semaphore_err", "error while using semaphores"),
        24: ("srtp_err_status_pfkey_err", "error while using pfkey"),
        25: ("srtp_err_status_bad_mki", "MKI present in packet is invalid"),
        26: ("srtp_err_status_pkt_idx_old", "packet index is too old to consider"),
        27: ("srtp_err_status_pkt_idx_adv", "packet index advanced, reset needed"),
    ]
}
