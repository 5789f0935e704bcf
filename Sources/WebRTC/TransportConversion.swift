import DTLS
import ICE
import SDP

/// The SDP module's spellings of ICE and DTLS values against the ICE and DTLS modules' own.
enum TransportConversion {
    /// A local candidate as an `a=candidate` line carries it.
    static func sdpCandidate(_ candidate: ICECandidate) -> Candidate {
        let type: CandidateType = switch candidate.type {
        case .host: .host
        case .serverReflexive: .serverReflexive
        case .peerReflexive: .peerReflexive
        case .relayed: .relay
        }
        return Candidate(
            foundation: candidate.foundation, componentID: UInt16(clamping: candidate.componentID), transport: "UDP",
            priority: candidate.priority, address: candidate.address, port: candidate.port, type: type,
            relatedAddress: candidate.relatedAddress, relatedPort: candidate.relatedPort)
    }

    /// The peer's UDP candidates of component 1 (rtcp-mux, BUNDLE); TCP and unknown types are
    /// dropped, as the agent gathers UDP only.
    static func iceCandidates(_ candidates: [Candidate]) -> [ICECandidate] {
        candidates.compactMap { candidate in
            guard candidate.isUDP, candidate.componentID == 1 else { return nil }
            let type: ICECandidateType
            switch candidate.type {
            case .host: type = .host
            case .serverReflexive: type = .serverReflexive
            case .peerReflexive: type = .peerReflexive
            case .relay: type = .relayed
            case .other: return nil
            }
            return ICECandidate(
                foundation: String(candidate.foundation.prefix(32)), componentID: 1, priority: candidate.priority,
                address: candidate.address, port: candidate.port, type: type, relatedAddress: candidate.relatedAddress,
                relatedPort: candidate.relatedPort)
        }
    }

    static func sdpFingerprint(_ fingerprint: DTLSFingerprint) -> Fingerprint {
        Fingerprint(hashFunction: HashFunction(rawValue: fingerprint.hashFunction.rawValue), digest: fingerprint.digest)
    }

    /// The strongest of the peer's fingerprints that DTLS can check (RFC 8122 section 5).
    static func remoteFingerprint(_ fingerprints: [Fingerprint]) throws(WebRTCError) -> DTLSFingerprint {
        var usable: [DTLSFingerprint] = []
        for fingerprint in fingerprints {
            if let parsed = try? DTLSFingerprint(sdpValue: fingerprint.sdpValue) { usable.append(parsed) }
        }
        guard let best = usable.max(by: { $0.hashFunction.length < $1.hashFunction.length }) else {
            throw .unsupportedFingerprint(fingerprints.map(\.hashFunction.rawValue))
        }
        return best
    }

    static func dtlsRole(_ role: DTLSRole) -> DTLSSession.Role {
        role == .client ? .client : .server
    }

    static func iceCredentials(_ credentials: ICEParameters) -> ICECredentials {
        ICECredentials(usernameFragment: credentials.usernameFragment, password: credentials.password)
    }

    static func sdpCredentials(_ credentials: ICECredentials) -> ICEParameters {
        ICEParameters(usernameFragment: credentials.usernameFragment, password: credentials.password)
    }
}
