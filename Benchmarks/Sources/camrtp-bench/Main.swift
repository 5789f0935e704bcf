import Capture
import Foundation
import MallocInterposerSwift
import MediaCore
import RTP
import Transport
import VP8

@main
struct CamrtpBench {
    static func main() throws {
        let options = Options.parse(CommandLine.arguments.dropFirst())
        guard AllocationCounter.isPreloaded() else {
            FileHandle.standardError.write(Data("""
                camrtp-bench counts heap allocations, so libMallocInterposerSwift must be preloaded:
                  LD_PRELOAD=.build/release/libMallocInterposerSwift.so .build/release/camrtp-bench

                """.utf8))
            exit(2)
        }

        let encoder = try EncoderBenchmark.run(frameCount: options.frames)
        print(encoder.table())
        print("")
        let send = try SendPathBenchmark.run(frames: encoder.frames, passes: options.passes)
        print(send.table())
        if let path = options.jsonPath {
            let report = Report(encoder: encoder.summary, sendPath: send.rows)
            let encoded = try JSONEncoder.pretty.encode(report)
            try encoded.write(to: URL(fileURLWithPath: path))
        }
        // The pool must have reused one buffer for every frame.
        if encoder.summary.poolAllocationCount != 1 { exit(1) }
    }
}

struct Options {
    var frames = 300
    var passes = 20
    var jsonPath: String?

    static func parse(_ arguments: ArraySlice<String>) -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--frames": options.frames = iterator.next().flatMap(Int.init) ?? options.frames
            case "--passes": options.passes = iterator.next().flatMap(Int.init) ?? options.passes
            case "--json": options.jsonPath = iterator.next()
            default:
                FileHandle.standardError.write(Data("usage: camrtp-bench [--frames N] [--passes N] [--json FILE]\n".utf8))
                exit(64)
            }
        }
        return options
    }
}

struct Report: Encodable {
    var encoder: EncoderBenchmark.Summary
    var sendPath: [SendPathBenchmark.Row]
}

extension JSONEncoder {
    static var pretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}
