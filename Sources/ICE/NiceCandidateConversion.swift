import CNice

/// Conversions between libnice's `NiceCandidate` and `ICECandidate`.
extension ICECandidate {
    /// Reads a candidate that libnice owns; the pointer need not outlive the call.
    init(_ candidate: UnsafePointer<NiceCandidate>) {
        let type = ICECandidateType(candidate.pointee.type)
        var address = candidate.pointee.addr
        var base = candidate.pointee.base_addr
        let foundation = withUnsafeBytes(of: candidate.pointee.foundation) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        self.init(
            foundation: foundation, componentID: Int(candidate.pointee.component_id),
            priority: candidate.pointee.priority, address: Self.text(of: &address),
            port: UInt16(truncatingIfNeeded: nice_address_get_port(&address)), type: type,
            relatedAddress: type == .host ? nil : Self.text(of: &base),
            relatedPort: type == .host ? nil : UInt16(truncatingIfNeeded: nice_address_get_port(&base)))
    }

    /// A new libnice candidate for the peer's side, or nil when `address` is no IP literal (an
    /// mDNS `.local` name, which RFC 8839 lets an agent that cannot resolve it ignore).
    /// The caller owns the result and frees it with `nice_candidate_free`.
    func makeNiceCandidate(streamID: UInt32) -> UnsafeMutablePointer<NiceCandidate>? {
        var parsed = NiceAddress()
        guard nice_address_set_from_string(&parsed, address) != 0 else { return nil }
        nice_address_set_port(&parsed, UInt32(port))
        guard let candidate = nice_candidate_new(type.niceType) else { return nil }
        candidate.pointee.transport = NICE_CANDIDATE_TRANSPORT_UDP
        candidate.pointee.addr = parsed
        candidate.pointee.base_addr = parsed
        if let relatedAddress, let relatedPort {
            var related = NiceAddress()
            if nice_address_set_from_string(&related, relatedAddress) != 0 {
                nice_address_set_port(&related, UInt32(relatedPort))
                candidate.pointee.base_addr = related
            }
        }
        candidate.pointee.priority = priority
        candidate.pointee.stream_id = streamID
        candidate.pointee.component_id = UInt32(truncatingIfNeeded: componentID)
        withUnsafeMutableBytes(of: &candidate.pointee.foundation) { field in
            let bytes = foundation.utf8.prefix(field.count - 1)
            field.initializeMemory(as: UInt8.self, repeating: 0)
            field.copyBytes(from: bytes)
        }
        return candidate
    }

    private static func text(of address: inout NiceAddress) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            buffer.initialize(repeating: 0)
            nice_address_to_string(&address, buffer.baseAddress)
            return String(cString: buffer.baseAddress!)
        }
    }
}

extension ICECandidateType {
    init(_ type: NiceCandidateType) {
        switch type {
        case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: self = .serverReflexive
        case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: self = .peerReflexive
        case NICE_CANDIDATE_TYPE_RELAYED: self = .relayed
        default: self = .host
        }
    }

    var niceType: NiceCandidateType {
        switch self {
        case .host: NICE_CANDIDATE_TYPE_HOST
        case .serverReflexive: NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE
        case .peerReflexive: NICE_CANDIDATE_TYPE_PEER_REFLEXIVE
        case .relayed: NICE_CANDIDATE_TYPE_RELAYED
        }
    }
}

extension ICEConnectionState {
    init(niceState: UInt32) {
        switch NiceComponentState(niceState) {
        case NICE_COMPONENT_STATE_GATHERING: self = .gathering
        case NICE_COMPONENT_STATE_CONNECTING: self = .checking
        case NICE_COMPONENT_STATE_CONNECTED: self = .connected
        case NICE_COMPONENT_STATE_READY: self = .ready
        case NICE_COMPONENT_STATE_FAILED: self = .failed
        default: self = .disconnected
        }
    }
}
