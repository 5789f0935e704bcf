import RTP

/// One packet status chunk of transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.2–3.1.4), kept as its 16-bit word.
///
/// ```
///  run length chunk (T = 0)            status vector chunk (T = 1)
///  0                   1               0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |T| S |       Run Length        |   |T|S|       symbol list         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// A run length chunk gives one 2-bit symbol S for up to 8191 packets. A status vector chunk
/// lists 14 one-bit symbols (S = 0: not received or small delta) or 7 two-bit ones (S = 1).
struct TransportWideFeedbackChunk: Equatable, Sendable {
    /// Packet status symbols (§3.1.1); the value 3 is reserved.
    enum Symbol: UInt8 {
        case notReceived = 0
        /// Received, with a 1-byte unsigned receive delta.
        case receivedSmallDelta = 1
        /// Received, with a 2-byte signed receive delta.
        case receivedLargeDelta = 2

        /// Receive delta bytes; the symbol values happen to equal them.
        var deltaSize: Int { Int(rawValue) }
    }

    static let maximumRunLength = 0x1FFF
    static let oneBitCapacity = 14
    static let twoBitCapacity = 7

    let word: UInt16

    /// How many packet statuses the chunk describes.
    var capacity: Int {
        if word & 0x8000 == 0 { return Int(word & 0x1FFF) }
        return word & 0x4000 == 0 ? Self.oneBitCapacity : Self.twoBitCapacity
    }

    /// The symbol of status `index` (below `capacity`) as on the wire, 0–3.
    func rawSymbol(at index: Int) -> UInt8 {
        if word & 0x8000 == 0 { return UInt8(word >> 13 & 0x03) }
        if word & 0x4000 == 0 { return UInt8(word >> (13 - index) & 0x01) }
        return UInt8(word >> (12 - 2 * index) & 0x03)
    }

    /// The receive delta bytes that the first `count` statuses call for; throws on a reserved
    /// symbol. A run costs the same whatever its length.
    func receiveDeltaSize(inFirst count: Int) throws(WireFormatError) -> Int {
        let isRunLength = word & 0x8000 == 0
        var size = 0
        for index in 0..<(isRunLength ? min(count, 1) : count) {
            guard let symbol = Symbol(rawValue: rawSymbol(at: index)) else {
                throw .invalid(structure: "RTCP transport-wide feedback", reason: "reserved packet status symbol 3")
            }
            size += symbol.deltaSize
        }
        return isRunLength ? size * count : size
    }

    /// Calls `body` for each received packet among the first `count` statuses, in order, with
    /// its symbol; for chunks whose symbols `receiveDeltaSize(inFirst:)` accepted. A run of lost
    /// packets costs nothing.
    func forEachReceived<E: Error>(inFirst count: Int, _ body: (Symbol) throws(E) -> Void) throws(E) {
        let isRunLength = word & 0x8000 == 0
        for index in 0..<count {
            let symbol = Symbol(rawValue: rawSymbol(at: index)) ?? .notReceived
            if symbol != .notReceived {
                try body(symbol)
            } else if isRunLength {
                return
            }
        }
    }

    /// Chunks describing `symbols` in order: a run length chunk where a symbol repeats long
    /// enough to beat a vector, else a one-bit vector when the next 14 need no large delta,
    /// else a two-bit vector of 7. The last vector may reach past the end; its spare symbols
    /// are 0 and readers ignore them.
    static func encode(_ symbols: [Symbol]) -> [TransportWideFeedbackChunk] {
        var chunks: [TransportWideFeedbackChunk] = []
        var start = 0
        while start < symbols.count {
            let symbol = symbols[start]
            var run = 1
            while start + run < symbols.count, run < maximumRunLength, symbols[start + run] == symbol { run += 1 }
            let window = symbols[start..<min(start + oneBitCapacity, symbols.count)]
            let needsTwoBits = window.contains(.receivedLargeDelta)
            if run >= oneBitCapacity || start + run == symbols.count || (needsTwoBits && run >= twoBitCapacity) {
                chunks.append(TransportWideFeedbackChunk(word: UInt16(symbol.rawValue) << 13 | UInt16(run)))
                start += run
            } else if !needsTwoBits {
                var word: UInt16 = 0x8000
                for (index, symbol) in window.enumerated() { word |= UInt16(symbol.rawValue) << (13 - index) }
                chunks.append(TransportWideFeedbackChunk(word: word))
                start += window.count
            } else {
                var word: UInt16 = 0xC000
                for (index, symbol) in window.prefix(twoBitCapacity).enumerated() {
                    word |= UInt16(symbol.rawValue) << (12 - 2 * index)
                }
                chunks.append(TransportWideFeedbackChunk(word: word))
                start += min(twoBitCapacity, window.count)
            }
        }
        return chunks
    }
}
