import FoundationEssentials

/// The impairment relay's `--packet-log`: one line per datagram, with its arrival, its departure
/// (when it left) and its fate. Times count in nanoseconds from the first datagram the relay saw,
/// in either direction, as its statistics' bins do.
public struct RelayPacketLog: Sendable {
    public struct Packet: Sendable, Equatable {
        public enum Direction: String, Sendable {
            case forward, reverse
        }

        public var direction: Direction
        public var lane: Int
        public var arrivalNs: Int64
        /// Nil for a dropped packet.
        public var departureNs: Int64?
        public var sizeBytes: Int
        /// `sent`, or why not: `loss`, `queue`, `no_peer`, `send_error`, `unsent_at_exit`.
        public var reason: String

        public var wasSent: Bool { reason == "sent" }
        public var wasDroppedByTheQueue: Bool { reason == "queue" }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static let header = "direction,lane,arrival_ns,departure_ns,size,reason"

    public let packets: [Packet]

    public init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n")
        guard lines.first.map(String.init) == Self.header else {
            throw Failure(description: "\(path): not a relay packet log (header \(lines.first ?? "missing"))")
        }
        lines.removeFirst()
        packets = try lines.map { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 6, let direction = Packet.Direction(rawValue: String(cells[0])), let lane = Int(cells[1]),
                let arrival = Int64(cells[2]), let size = Int(cells[4])
            else { throw Failure(description: "\(path): bad line \"\(line)\"") }
            return Packet(
                direction: direction, lane: lane, arrivalNs: arrival, departureNs: Int64(cells[3]), sizeBytes: size,
                reason: String(cells[5]))
        }
    }

    public var forward: [Packet] { packets.filter { $0.direction == .forward } }

    /// When the first forward datagram arrived: the sender's first packet, on the relay's clock.
    public var firstForwardArrivalNs: Int64? { packets.first { $0.direction == .forward }?.arrivalNs }
}
