import FoundationEssentials

/// camrtp's `--trace-bwe` CSV read back: one record per congestion-controller update, with the
/// columns a test looks at. The header must be the one `BWETraceRecord.csvHeader` writes.
public struct BWETrace: Sendable {
    public struct Record: Sendable, Equatable {
        /// Since the trace's first record (the controller's start, when the first packet left).
        public var timeMs: Double
        public var event: String
        public var targetBitrateBps: Int64
        public var delayBasedBitrateBps: Int64
        public var probeBitrateBps: Int64?
        public var detectorState: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let records: [Record]

    public init(path: String) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        guard let header = lines.first?.split(separator: ",").map(String.init) else {
            throw Failure(description: "\(path): empty")
        }
        func column(_ name: String) throws -> Int {
            guard let index = header.firstIndex(of: name) else { throw Failure(description: "\(path): no column \(name)") }
            return index
        }
        let (time, event, target) = (try column("time_ms"), try column("event"), try column("target_bps"))
        let (delayBased, probe, detector) = (try column("delay_based_bps"), try column("probe_bps"), try column("detector_state"))
        var records: [Record] = []
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == header.count, let timeMs = Double(cells[time]), let targetBps = Int64(cells[target]),
                let delayBasedBps = Int64(cells[delayBased])
            else { throw Failure(description: "\(path): bad line \"\(line)\"") }
            records.append(Record(
                timeMs: timeMs, event: String(cells[event]), targetBitrateBps: targetBps,
                delayBasedBitrateBps: delayBasedBps, probeBitrateBps: Int64(cells[probe]), detectorState: String(cells[detector])))
        }
        guard let startMs = records.first?.timeMs else { throw Failure(description: "\(path): no records") }
        self.records = records.map { record in
            var record = record
            record.timeMs -= startMs
            return record
        }
    }

    /// The target (bit/s) in force at each moment of [fromS, toS), weighted by how long it held.
    public func meanTargetBps(fromS: Double, toS: Double) -> Double? {
        var weighted = 0.0
        var total = 0.0
        for (index, record) in records.enumerated() {
            let start = max(record.timeMs / 1000, fromS)
            let end = min(index + 1 < records.count ? records[index + 1].timeMs / 1000 : toS, toS)
            guard end > start else { continue }
            weighted += Double(record.targetBitrateBps) * (end - start)
            total += end - start
        }
        return total > 0 ? weighted / total : nil
    }

    /// The records of [fromS, toS).
    public func records(fromS: Double, toS: Double) -> [Record] {
        records.filter { $0.timeMs / 1000 >= fromS && $0.timeMs / 1000 < toS }
    }
}
