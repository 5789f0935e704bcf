import Capture
import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `camrtp record` as a person uses it: what it writes, what it never destroys, and how it
    /// fails.
    @Suite struct RecordFileTests {
        let folder = TemporaryDirectory()

        func clip(_ name: String = "clip.y4m", frames: Int = 5) throws -> String {
            let path = folder.file(name)
            try Y4MFile.writeTestPattern(to: path, width: 64, height: 48, count: frames)
            return path
        }

        func bytes(_ path: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }

        func fileType(_ path: String) -> mode_t {
            var status = stat()
            return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
        }

        /// The IVF header's frame count and the frames actually in the file.
        func ivfFrames(_ path: String) throws -> (declared: Int, present: Int) {
            let data = try bytes(path)
            try #require(data.count >= 32 && Array(data.prefix(4)) == Array("DKIF".utf8))
            let declared = Int(data[24]) | Int(data[25]) << 8 | Int(data[26]) << 16 | Int(data[27]) << 24
            var offset = 32, present = 0
            while offset + 12 <= data.count {
                let size = Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
                offset += 12 + size
                if offset <= data.count { present += 1 }
            }
            return (declared, present)
        }

        func record(_ arguments: [String]) throws -> ExternalTool.Result {
            try CamrtpBinary.run(["record"] + arguments, timeout: 60)
        }

        /// A device node is written through, never replaced: a copy of /dev/null takes the IVF and
        /// a copy of /dev/full fails with ENOSPC, a failure while running (1) in one line.
        @Test(arguments: [(UInt32(3), Int32(0)), (UInt32(7), Int32(1))])
        func aDeviceStaysADevice(minor: UInt32, status: Int32) throws {
            let device = folder.file("device.ivf")
            try #require(DeviceNode.make(at: device, major: 1, minor: minor), "making a device node needs CAP_MKNOD")
            let result = try record(["--source", "testsrc:64x48", "--frames", "5", "--out", device])
            #expect(result.status == status, "\(result.stderr)")
            #expect(fileType(device) == S_IFCHR)
            if status == 1 {
                let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("camrtp: recording") }
                #expect(lines == ["camrtp: \(device): write failed: No space left on device (errno 28)"])
            }
        }

        @Test func aSymlinkStaysASymlinkAndItsTargetGetsTheRecording() throws {
            let target = folder.file("target.ivf"), link = folder.file("link.ivf")
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.ivf")
            let result = try record(["--source", "testsrc:64x48", "--frames", "5", "--out", link])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(fileType(link) == S_IFLNK)
            #expect(try ivfFrames(target) == (5, 5))
        }

        @Test func aDirectoryIsRefused() throws {
            let result = try record(["--source", "testsrc:64x48", "--frames", "5", "--out", folder.path])
            #expect(result.status == 2)
            #expect(result.stderr.hasSuffix("camrtp: --out \(folder.path): is a directory; name a file in it\n"), "\(result.stderr)")
        }

        /// The input is never the output, however it is named: the same path, a symlink to it, a
        /// hard link to it.
        @Test(arguments: ["same", "symlink", "hardlink"])
        func theSourceFileIsNeverTheOutput(naming: String) throws {
            let input = try clip()
            let before = try bytes(input)
            let output: String
            switch naming {
            case "symlink":
                output = folder.file("link.y4m")
                try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: input)
            case "hardlink":
                output = folder.file("hard.y4m")
                #expect(link(input, output) == 0)
            default:
                output = input
            }
            let result = try record(["--source", "y4m:\(input)", "--out", output])
            #expect(result.status == 2)
            #expect(result.stderr == "camrtp: --out \(output) is the --source file \(input) itself; write to another file\n")
            #expect(try bytes(input) == before)
        }

        @Test func aBadSourceLeavesAnExistingOutputAsItWas() throws {
            let output = folder.file("keep.ivf")
            try Data([7, 7, 7]).write(to: URL(fileURLWithPath: output))
            let result = try record(["--source", "y4m:\(folder.file("missing.y4m"))", "--out", output])
            #expect(result.status == 2)
            #expect(try bytes(output) == [7, 7, 7])
        }

        /// A file cut short in its second frame: the first is encoded and written, the header
        /// counts it, and the damage is still reported as bad input.
        @Test func aTruncatedFileKeepsEveryGoodFrame() throws {
            let input = try clip(frames: 2)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: input))
            try handle.truncate(atOffset: try handle.seekToEnd() - 100)
            try handle.close()
            let output = folder.file("cut.ivf")
            let result = try record(["--source", "y4m:\(input)", "--out", output])
            #expect(result.status == 2)
            #expect(result.stderr.hasSuffix("camrtp: \(input): truncated: frame 1 has 4508 of 4608 bytes\n"), "\(result.stderr)")
            #expect(try ivfFrames(output) == (1, 1))
        }

        /// README: "a camera runs in real time until --frames, --duration or Ctrl-C".
        @Test func aCameraRecordsInRealTimeWithoutFlags() throws {
            let output = folder.file("camera.ivf")
            let result = try record(["--source", "fake-camera", "--frames", "5", "--out", output])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try ivfFrames(output) == (5, 5))
        }

        /// `frames` of ffmpeg's cellular automaton (a lavfi `source`), all detail, as a Y4M file.
        func cellularAutomaton(_ source: String, frames: Int) throws -> String {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
            let path = folder.file("cells.y4m")
            let made = try ExternalTool("ffmpeg").run([
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", source, "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-y", path,
            ])
            try #require(made.status == 0, "\(made.stderr)")
            return path
        }

        /// A cellular automaton is all detail; at 400 kbit/s a live stream drops most of it to
        /// hold the rate, but a recording, like vpxenc, keeps every frame.
        @Test func aRecordingKeepsEveryFrameWhateverTheBitrate() throws {
            let input = try cellularAutomaton("cellauto=s=321x241:rate=30", frames: 40)
            let output = folder.file("cells.ivf"), stats = folder.file("stats.json")
            let result = try record(["--source", "y4m:\(input)", "--bitrate", "400", "--out", output, "--stats-json", stats])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try ivfFrames(output) == (40, 40))
            let figures = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any]
            #expect(figures?["framesEncoded"] as? Int == 40)
            #expect((figures?["framesDropped"] as? [String: Int])?["encoderDrop"] ?? 0 == 0)
        }

        /// A recording is encoded as vpxenc encodes a file (libvpx's own settings at the same
        /// deadline, speed, threads, bitrate and keyframes), not as a stream: on a clip that is all
        /// detail, every frame of the IVF is byte for byte vpxenc's, the keyframe uncapped.
        @Test func aRecordingIsWhatVpxencWritesAtTheSameSettings() throws {
            try #require(ExternalTool.locate("vpxenc") != nil, "vpxenc is needed: apt-get install vpx-tools")
            let input = try cellularAutomaton("cellauto=s=320x240:rate=30:seed=7", frames: 30)
            let ours = folder.file("camrtp.ivf"), theirs = folder.file("vpxenc.ivf")
            let result = try record([
                "--source", "y4m:\(input)", "--bitrate", "300", "--threads", "1", "--cpu-used=-6", "--keyframe-interval", "0", "--out", ours,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let reference = try ExternalTool("vpxenc").run([
                "--quiet", "--ivf", "--codec=vp8", "--rt", "--cpu-used=-6", "--threads=1", "--target-bitrate=300", "--kf-max-dist=3000",
                "-o", theirs, input,
            ])
            try #require(reference.status == 0, "\(reference.stderr)")
            let (camrtpFrames, vpxencFrames) = (try ivfPayloads(ours), try ivfPayloads(theirs))
            #expect(camrtpFrames.count == 30)
            #expect(camrtpFrames == vpxencFrames, "frame sizes: camrtp \(camrtpFrames.map(\.count)), vpxenc \(vpxencFrames.map(\.count))")
        }

        /// The frames of an IVF file, without their headers.
        func ivfPayloads(_ path: String) throws -> [[UInt8]] {
            let data = try bytes(path)
            var offset = Int(data[6]) | Int(data[7]) << 8, frames: [[UInt8]] = []
            while offset + 12 <= data.count {
                let size = Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
                frames.append(Array(data[(offset + 12)..<min(data.count, offset + 12 + size)]))
                offset += 12 + size
            }
            return frames
        }

        /// A place that cannot take the figures fails at the start, before anything is recorded.
        @Test func anUnwritableStatsFileFailsBeforeTheRun() throws {
            let output = folder.file("never.ivf")
            let result = try record([
                "--source", "testsrc:64x48", "--frames", "5", "--out", output, "--stats-json", folder.file("nowhere/stats.json"),
            ])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("camrtp: --stats-json \(folder.path)/nowhere/stats.json: the folder \(folder.path)/nowhere does not exist"))
            #expect(!FileManager.default.fileExists(atPath: output))
        }

        /// A pipe is read once, frame for frame, named `-` or `/dev/stdin`.
        @Test(arguments: ["-", "/dev/stdin"])
        func aPipedClipIsRecordedWhole(name: String) throws {
            let input = try clip(frames: 7)
            let output = folder.file("piped.ivf")
            let result = try CamrtpBinary.runInShell("cat '\(input)' | \"$0\" \"$@\"", [
                "record", "--source", "y4m:\(name)", "--out", output,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try ivfFrames(output) == (7, 7))
        }

        @Test func aPipeCannotLoop() throws {
            let input = try clip()
            let result = try CamrtpBinary.runInShell("cat '\(input)' | \"$0\" \"$@\"", [
                "record", "--source", "y4m:-", "--loop", "--frames", "3", "--out", folder.file("x.ivf"),
            ])
            #expect(result.status == 2)
            #expect(result.stderr == """
                camrtp: standard input: a pipe cannot be looped, as it cannot go back to its first frame; save it to a file first, or leave out --loop

                """)
        }
    }
}
