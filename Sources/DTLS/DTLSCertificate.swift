import CSSL

/// The certificate and private key this side presents in the DTLS handshake. WebRTC peers do not
/// check it against a CA: they compare its hash with the `a=fingerprint` of our SDP (RFC 8827
/// section 6.5, RFC 8122 section 5), so a fresh self-signed certificate per process is the norm.
///
/// Immutable once made: OpenSSL's `X509` and `EVP_PKEY` are reference-counted atomically and only
/// read after creation, so one certificate may serve sessions on several threads. Both are freed
/// in `deinit`.
public final class DTLSCertificate: @unchecked Sendable {
    /// Common name of generated certificates.
    public static let defaultCommonName = "camrtp"
    /// Lifetime of generated certificates: long enough for any call, short enough to be disposable.
    public static let defaultLifetimeDays = 30

    /// `X509 *`
    let certificate: OpaquePointer
    /// `EVP_PKEY *`
    let privateKey: OpaquePointer
    /// The SHA-256 fingerprint for our SDP's `a=fingerprint` line.
    public let fingerprint: DTLSFingerprint

    private init(certificate: OpaquePointer, privateKey: OpaquePointer, fingerprint: DTLSFingerprint) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.fingerprint = fingerprint
    }

    /// Takes ownership of both handles, already checked to be one pair; frees them if it throws.
    private static func adopt(certificate: OpaquePointer, privateKey: OpaquePointer) throws(DTLSError) -> DTLSCertificate {
        do {
            let fingerprint = try DTLSFingerprint(of: certificate, hashFunction: .sha256)
            return DTLSCertificate(certificate: certificate, privateKey: privateKey, fingerprint: fingerprint)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(privateKey)
            throw error
        }
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// A fresh ECDSA P-256 key and a self-signed X.509 v3 certificate for it: random 63-bit serial,
    /// valid from a day ago (peers' clocks drift) for `lifetimeDays`, signed with SHA-256.
    public static func generate(
        commonName: String = defaultCommonName, lifetimeDays: Int = defaultLifetimeDays
    ) throws(DTLSError) -> DTLSCertificate {
        guard (1...3650).contains(lifetimeDays) else {
            throw DTLSError(
                "generate a certificate", .invalidConfiguration("lifetime \(lifetimeDays) days is outside 1…3650"))
        }
        guard let key = camrtp_EVP_EC_gen("P-256") else { throw DTLSError.openSSL("EVP_EC_gen P-256") }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw DTLSError.openSSL("X509_new")
        }
        do throws(DTLSError) {
            try build(certificate, key: key, commonName: commonName, lifetimeDays: lifetimeDays)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
        return try adopt(certificate: certificate, privateKey: key)
    }

    private static func build(
        _ certificate: OpaquePointer, key: OpaquePointer, commonName: String, lifetimeDays: Int
    ) throws(DTLSError) {
        let secondsPerDay = 86_400
        let serial = UInt64.random(in: 1...UInt64(Int64.max))
        let name = X509_get_subject_name(certificate)
        let commonNameBytes = Array(commonName.utf8)
        let steps: [(String, () -> Bool)] = [
            ("X509_set_version", { X509_set_version(certificate, 2) == 1 }),
            ("set the serial number", { ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial) == 1 }),
            ("set notBefore", { X509_gmtime_adj(X509_getm_notBefore(certificate), -secondsPerDay) != nil }),
            ("set notAfter", { X509_gmtime_adj(X509_getm_notAfter(certificate), secondsPerDay * lifetimeDays) != nil }),
            ("set the common name", {
                X509_NAME_add_entry_by_txt(
                    name, "CN", CAMRTP_MBSTRING_ASC, commonNameBytes, Int32(commonNameBytes.count), -1, 0) == 1
            }),
            ("X509_set_issuer_name", { X509_set_issuer_name(certificate, name) == 1 }),
            ("X509_set_pubkey", { X509_set_pubkey(certificate, key) == 1 }),
            ("X509_sign", { X509_sign(certificate, key, EVP_sha256()) > 0 }),
        ]
        for (operation, step) in steps where !step() {
            throw DTLSError.openSSL(operation)
        }
    }

    /// The certificate and key of PEM files, such as `--cert` and `--key` name. One file holding
    /// both blocks may be given twice. The key must be unencrypted and must match the certificate.
    public static func load(certificatePath: String, privateKeyPath: String) throws(DTLSError) -> DTLSCertificate {
        let certificateFile = try PEMFile(path: certificatePath)
        let keyFile = try PEMFile(path: privateKeyPath)
        ERR_clear_error()
        guard let certificate = certificateFile.withBIO({ PEM_read_bio_X509($0, nil, nil, nil) }) else {
            ERR_clear_error()
            throw DTLSError(
                "load the DTLS certificate",
                .missingPEMBlock(path: certificatePath, expected: "certificate", found: certificateFile.labels))
        }
        // A password callback that supplies nothing, so an encrypted key fails instead of prompting.
        let noPassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 =
            { _, _, _, _ in 0 }
        guard let key = keyFile.withBIO({ PEM_read_bio_PrivateKey($0, nil, noPassphrase, nil) }) else {
            ERR_clear_error()
            X509_free(certificate)
            let labels = keyFile.labels
            let encrypted = labels.contains("ENCRYPTED PRIVATE KEY")
                || String(decoding: keyFile.bytes, as: UTF8.self).contains("Proc-Type: 4,ENCRYPTED")
            throw DTLSError(
                "load the DTLS private key",
                encrypted ? .encryptedPrivateKey(path: privateKeyPath)
                    : .missingPEMBlock(path: privateKeyPath, expected: "private key", found: labels))
        }
        guard X509_check_private_key(certificate, key) == 1 else {
            ERR_clear_error()
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw DTLSError(
                "load the DTLS certificate",
                .keyDoesNotMatchCertificate(certificatePath: certificatePath, keyPath: privateKeyPath))
        }
        return try adopt(certificate: certificate, privateKey: key)
    }

    /// The certificate (not the key) in PEM, for other tools to inspect.
    public func certificatePEM() throws(DTLSError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw DTLSError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { throw DTLSError.openSSL("PEM_write_bio_X509") }
        var data: UnsafeMutablePointer<CChar>?
        let length = camrtp_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw DTLSError.openSSL("BIO_get_mem_data") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
