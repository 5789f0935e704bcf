import Foundation
import TestSupport
import Testing

@testable import CamrtpCLI
@testable import CongestionControl

@Suite struct BWETraceFilesTests {
    private func record(timeNs: Int64) -> BWETraceRecord {
        BWETraceRecord(
            timeNs: timeNs, event: .feedback, targetBitrateBps: 900_000, encoderBitrateBps: 850_000, pacingRateBps: 990_000,
            delayBasedBitrateBps: 950_000, lossBasedBitrateBps: 900_000, acknowledgedBitrateBps: nil, probeBitrateBps: nil,
            receiverLimitBps: nil, trend: 0, modifiedTrend: 0, thresholdMs: 12.5, detectorState: .normal, rateControlState: .hold,
            lossFraction: 0, roundTripTimeNs: 40_000_000, congestionWindowBytes: nil, bytesInFlight: 0)
    }

    /// Two viewers of `serve`: each session's updates in a file of its own, numbered as the
    /// sessions start, each with the CSV header of `send --trace-bwe`, and on disk as soon as
    /// they are written (a process stopped without closing them loses nothing).
    @Test func eachSessionWritesAFileOfItsOwn() throws {
        let folder = TemporaryDirectory()
        let files = try BWETraceFiles(prefix: folder.file("viewer"))
        let first = try #require(files.makeSink())
        let second = try #require(files.makeSink())
        second(record(timeNs: 2_000_000))
        first(record(timeNs: 1_000_000))
        let lines = { (name: String) in
            try String(contentsOfFile: folder.file(name), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        #expect(try lines("viewer-1.csv") == [BWETraceRecord.csvHeader, record(timeNs: 1_000_000).csvLine])
        #expect(try lines("viewer-2.csv") == [BWETraceRecord.csvHeader, record(timeNs: 2_000_000).csvLine])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["viewer-1.csv", "viewer-2.csv"])
    }

    /// A prefix in a folder that does not exist fails before anything starts, in one line.
    @Test func aPrefixThatCannotBeWrittenIsBadUsage() {
        let folder = TemporaryDirectory()
        #expect {
            try BWETraceFiles(prefix: folder.file("missing/viewer"))
        } throws: { error in
            guard let error = error as? CLIError else { return false }
            return error.kind == .usage
                && error.message == "--trace-bwe \(folder.file("missing/viewer"))-1.csv: cannot write: No such file or directory"
        }
    }
}
