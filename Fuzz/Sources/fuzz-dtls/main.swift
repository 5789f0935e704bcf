// What reaches DTLS on a WebRTC socket: RFC 7983 demultiplexing of each datagram, the record
// headers in it, and a DTLS-SRTP session in the middle of its handshake that is fed the
// datagrams, with its retransmission timer run between them.
//
// Input: a role byte (even: we are the server, awaiting a ClientHello; odd: the client, which
// has sent its ClientHello), then datagrams in `FuzzRecords` form (a 16-bit length before each).

import DTLS
import FuzzSupport
import RTP
import Transport

/// Made once: a key pair per input would cost more than the handshake under test.
let certificate: DTLSCertificate
do {
    certificate = try DTLSCertificate.generate(commonName: "fuzz")
} catch {
    fatalError("DTLS: cannot make the fuzz certificate: \(error)")
}
/// The peer must hash to this; fuzzed certificates do not, so the handshake fails there, as it
/// would against an impostor.
let expectedFingerprint = certificate.fingerprint
let suites = DTLSSession.defaultSRTPSuites

/// The record headers in `datagram`: each one's fields write back as the bytes they came from.
func checkRecords(_ datagram: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < datagram.count {
        let rest = UnsafeRawBufferPointer(rebasing: datagram[offset...])
        guard let header = try? DTLSRecordHeader(parsing: rest) else { return }
        fuzzCheck(DTLSRecordHeader.size + header.length <= rest.count, "DTLS: \(header) runs past the datagram")
        withUnsafeTemporaryAllocation(byteCount: DTLSRecordHeader.size, alignment: 8) { buffer in
            let written = try? header.serialize(into: buffer)
            fuzzCheck(written == DTLSRecordHeader.size, "DTLS: \(header) does not write")
            fuzzCheck(buffer.elementsEqual(rest[..<DTLSRecordHeader.size]), "DTLS: \(header) writes other bytes than it came from")
        }
        offset += DTLSRecordHeader.size + header.length
    }
}

/// What the session sends is whole DTLS records in datagrams no larger than its MTU.
func checkOutput(_ output: DTLSOutput, of session: DTLSSession) {
    for datagram in output.datagrams {
        datagram.withUnsafeBytes { bytes in
            fuzzCheck(bytes.count <= DTLSSession.defaultMTU, "DTLS: sent a datagram of \(bytes.count) bytes")
            fuzzCheck(PacketDemultiplexer.classify(bytes) == .dtls, "DTLS: sent a datagram that is not DTLS")
            var offset = 0
            while offset < bytes.count {
                guard let header = try? DTLSRecordHeader(parsing: UnsafeRawBufferPointer(rebasing: bytes[offset...])) else {
                    fuzzCheck(false, "DTLS: sent a datagram whose record at \(offset) does not read")
                    return
                }
                offset += DTLSRecordHeader.size + header.length
            }
        }
    }
    let failures = output.events.filter { if case .failed = $0 { true } else { false } }.count
    fuzzCheck(failures <= 1, "DTLS: \(failures) failures in one output")
    fuzzCheck(failures == 0 || session.state == .failed, "DTLS: reported a failure in state \(session.state)")
}

fuzz { input in
    guard let roleByte = input.first else { return }
    let role: DTLSSession.Role = roleByte % 2 == 0 ? .server : .client
    let session: DTLSSession
    do {
        session = try DTLSSession(role: role, certificate: certificate, remoteFingerprint: expectedFingerprint, srtpSuites: suites)
    } catch {
        fatalError("DTLS: cannot set up a session: \(error)")
    }
    var nowNs: Int64 = 1_000_000_000
    checkOutput(session.start(nowNs: nowNs), of: session)
    var received = 0
    for datagram in FuzzRecords(UnsafeRawBufferPointer(rebasing: input.dropFirst())) {
        // RFC 7983 section 7: the first byte alone says DTLS.
        let isDTLS = datagram.first.map { (20...63).contains($0) } ?? false
        fuzzCheck((PacketDemultiplexer.classify(datagram) == .dtls) == isDTLS, "DTLS: first byte \(datagram.first ?? 0) misrouted")
        checkRecords(datagram)
        let wasDone = session.state == .failed || session.state == .closed
        let output = session.receive(datagram, nowNs: nowNs)
        received += 1
        checkOutput(output, of: session)
        if wasDone { fuzzCheck(output == DTLSOutput(), "DTLS: answered in state \(session.state)") }
        // The peer is slow: the retransmission timer runs out before its next datagram.
        if let deadline = session.nextTimeoutNs {
            fuzzCheck(deadline >= nowNs, "DTLS: a timer due at \(deadline) ns set at \(nowNs) ns")
            nowNs = deadline
            checkOutput(session.handleTimeout(nowNs: nowNs), of: session)
        }
    }
    fuzzCheck(session.receivedDatagramCount == received, "DTLS: counted \(session.receivedDatagramCount) of \(received) datagrams")
    checkOutput(session.close(), of: session)
}
