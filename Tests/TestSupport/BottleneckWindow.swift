/// What the relay's forward bottleneck did to the sender's packets over a window of a run
/// ([fromS, toS), seconds since the relay's first packet, the clock of its bins, its packet log
/// and its rate schedule): the queueing delay, the queue's drops and how much of the capacity
/// the sender used.
public struct BottleneckWindow: Sendable {
    public let fromS: Double
    public let toS: Double
    /// Packets that arrived at the relay in the window, and how many the full queue dropped.
    public let arrivals: Int
    public let queueDrops: Int
    /// Over the packets that arrived in the window and left: transit time less the fixed one-way
    /// delay, that is queueing (own transmission included) plus the relay's own lateness, so
    /// never less than the model's queueing delay.
    public let queueDelayP95Ms: Double?
    /// The worst of the per-second queueing delay p95s (the model's) of the whole seconds inside the window.
    public let worstSecondQueueDelayP95Ms: Double?
    /// Mean throughput out of the bottleneck and mean configured rate over the whole seconds
    /// inside the window.
    public let throughputKbps: Double
    public let capacityKbps: Double

    public var dropFraction: Double { arrivals > 0 ? Double(queueDrops) / Double(arrivals) : 0 }

    public var utilisation: Double { capacityKbps > 0 ? throughputKbps / capacityKbps : 0 }

    public init(stats: ImpairmentRelayStats, log: RelayPacketLog, oneWayDelayMs: Double, fromS: Double, toS: Double) {
        self.fromS = fromS
        self.toS = toS
        let inWindow = log.forward.filter { Double($0.arrivalNs) / 1e9 >= fromS && Double($0.arrivalNs) / 1e9 < toS }
        arrivals = inWindow.count
        queueDrops = inWindow.filter(\.wasDroppedByTheQueue).count
        let delaysMs = inWindow.compactMap { packet in
            packet.departureNs.map { Double($0 - packet.arrivalNs) / 1e6 - oneWayDelayMs }
        }.sorted()
        queueDelayP95Ms = Self.nearestRank(delaysMs, 0.95)
        // The last bin is cut short by the stop.
        let seconds = stats.forward.bins.dropLast().filter { Double($0.startS) >= fromS && Double($0.startS + 1) <= toS }
        worstSecondQueueDelayP95Ms = seconds.compactMap(\.queueDelayP95Ms).max()
        let count = Double(max(seconds.count, 1))
        throughputKbps = seconds.map(\.throughputKbps).reduce(0, +) / count
        capacityKbps = seconds.compactMap(\.rateKbps).reduce(0, +) / count
    }

    /// The nearest-rank percentile, as the relay computes its own.
    static func nearestRank(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((Double(sorted.count) * fraction).rounded(.up))
        return sorted[max(0, rank - 1)]
    }

    /// One line for a test's message or a report.
    public var summary: String {
        func ms(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "-" }
        return "[\(Int(fromS)), \(Int(toS))) s: queueing delay p95 \(ms(queueDelayP95Ms)) ms (worst second \(ms(worstSecondQueueDelayP95Ms)) ms), "
            + "queue drops \(queueDrops)/\(arrivals), throughput \(Int(throughputKbps)) of \(Int(capacityKbps)) kbit/s"
    }
}
