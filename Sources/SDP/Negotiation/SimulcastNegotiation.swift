/// One encoding we offer as a simulcast stream (RFC 8853): its RID, the encoder's index of it
/// (`EncodedFrame.encodingIndex`: 0 is the lowest resolution), and the restrictions written on
/// its `a=rid` line (RFC 8851 §5).
public struct SimulcastEncoding: Sendable, Hashable {
    public var rid: String
    public var encodingIndex: Int
    public var maxWidth: Int?
    public var maxHeight: Int?

    public init(rid: String, encodingIndex: Int, maxWidth: Int? = nil, maxHeight: Int? = nil) {
        self.rid = rid
        self.encodingIndex = encodingIndex
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// `a=rid:<rid> send[ max-width=…;max-height=…]`.
    var ridAttribute: RIDAttribute {
        let restrictions = [("max-width", maxWidth), ("max-height", maxHeight)].compactMap { name, value in
            value.map { FormatParameter(name: name, value: String($0)) }
        }
        return RIDAttribute(id: rid, direction: .send, restrictions: restrictions)
    }
}

/// An encoding that the negotiation leaves to be sent: the encoder's index of it, and the RID
/// its packets carry (nil without simulcast).
public struct SentEncoding: Sendable, Hashable {
    public var encodingIndex: Int
    public var rid: String?

    public init(encodingIndex: Int, rid: String? = nil) {
        self.encodingIndex = encodingIndex
        self.rid = rid
    }
}

/// What an offer of simulcast says and what the answer leaves of it (RFC 8853 §5.3).
enum SimulcastNegotiation {
    /// Our offer's lines for `encodings`, in their order: `a=rid:<rid> send` each and
    /// `a=simulcast:send <rid>;<rid>;…`, one stream per encoding without alternatives.
    static func offer(_ encodings: [SimulcastEncoding], into section: inout MediaDescription) {
        section.rids = encodings.map(\.ridAttribute)
        section.simulcast = SimulcastAttribute(send: encodings.map { [SimulcastRID($0.rid)] })
    }

    /// The encodings to send after `answered`, lowest `encodingIndex` first.
    ///
    /// Without simulcast offered, encoding 0. With it, an answer with no `a=simulcast` comes from a
    /// peer that does not take simulcast (RFC 8853 §5.3.2: it ignores the lines): the highest
    /// encoding we offered goes, without RID, so that a plain receiver gets the best picture.
    /// Otherwise each stream of the answer's `recv` list is one encoding: its first alternative
    /// not paused (`~`); a stream with every alternative paused is not sent, and neither is an
    /// offered RID the answer leaves out. A RID the offer never had, in `a=rid` or `a=simulcast`,
    /// is an error, as is an answer that leaves nothing to send.
    static func sentEncodings(
        offered: [SimulcastEncoding], answered: MediaDescription
    ) throws(SDPNegotiationError) -> [SentEncoding] {
        guard let highest = offered.max(by: { $0.encodingIndex < $1.encodingIndex }) else { return [SentEncoding(encodingIndex: 0)] }
        guard let simulcast = answered.simulcast else { return [SentEncoding(encodingIndex: highest.encodingIndex)] }
        let byRID = Dictionary(offered.map { ($0.rid, $0) }, uniquingKeysWith: { first, _ in first })
        for rid in answered.rids {
            guard byRID[rid.id] != nil else { throw .unofferedRID(rid.id) }
            guard rid.direction == .recv else { throw .invalidRIDDirection(rid: rid.id, found: rid.direction) }
        }
        var sent: [Int: SentEncoding] = [:]
        for stream in simulcast.receive {
            for alternative in stream where byRID[alternative.rid] == nil { throw .unofferedRID(alternative.rid) }
            guard let chosen = stream.first(where: { !$0.isPaused }), let encoding = byRID[chosen.rid] else { continue }
            sent[encoding.encodingIndex] = SentEncoding(encodingIndex: encoding.encodingIndex, rid: encoding.rid)
        }
        guard !sent.isEmpty else { throw .noSimulcastStreamToSend }
        return sent.values.sorted { $0.encodingIndex < $1.encodingIndex }
    }
}
