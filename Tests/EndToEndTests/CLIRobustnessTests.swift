import Capture
import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// camrtp where a reliability engineer pushes: closed and full standard streams, signals at
    /// awkward moments, pipes, broken cameras, secrets on disk. Never a trap or a stack trace.
    @Suite struct CLIRobustnessTests {
        let folder = TemporaryDirectory()

        func clip(frames: Int) throws -> String {
            let path = folder.file("clip.y4m")
            try Y4MFile.writeTestPattern(to: path, width: 64, height: 48, count: frames)
            return path
        }

        /// Data on stdout that cannot be written is a failure: exit 1 and one line on stderr.
        @Test(arguments: [
            ("> /dev/full", ["sdp", "--to", "127.0.0.1:5004"], "No space left on device"),
            (">&-", ["sdp", "--to", "127.0.0.1:5004"], "it is closed"),
            ("> /dev/full", ["devices"], "No space left on device"),
        ])
        func aStdoutThatCannotBeWrittenIsAnError(redirection: String, arguments: [String], reason: String) throws {
            let result = try CamrtpBinary.runInShell("exec \"$0\" \"$@\" \(redirection)", arguments)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr == "camrtp: cannot write to standard output: \(reason)\n")
        }

        /// Notes and logs that cannot be written are lost, and the stream goes on.
        @Test(arguments: ["2>/dev/full", "2>&-"])
        func aFullOrClosedStderrDoesNotStopTheStream(redirection: String) throws {
            let receiver = try LoopbackSocket(ipv6: false)
            let result = try CamrtpBinary.runInShell("exec \"$0\" \"$@\" \(redirection)", [
                "send", "--source", "testsrc:64x48", "--frames", "10", "--to", "\(receiver.endpoint)", "-v",
            ])
            #expect(result.status == 0)
            #expect(receiver.waitForFrames(10, idleTimeoutMilliseconds: 5_000) == 10)
        }

        /// A status line a second, plain when stderr is a file or a pipe: no carriage returns or
        /// terminal escapes in a log.
        @Test func statsIntoAFileArePlainLines() throws {
            let result = try CamrtpBinary.run([
                "send", "--source", "testsrc:64x48@30", "--frames", "75", "--to", "127.0.0.1:9", "--stats",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"))
            #expect(result.stderr.split(separator: "\n").filter { $0.contains(" fps ") }.count >= 2)
        }

        @Test func sendReadsAPipeOnceFrameForFrame() throws {
            let input = try clip(frames: 7)
            let receiver = try LoopbackSocket(ipv6: false)
            let result = try CamrtpBinary.runInShell("cat '\(input)' | \"$0\" \"$@\"", [
                "send", "--source", "y4m:-", "--to", "\(receiver.endpoint)", "--pace", "fast",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("sent 7 frames"))
            #expect(receiver.waitForFrames(7, idleTimeoutMilliseconds: 5_000) == 7)
        }

        /// Started with SIGINT and SIGTERM ignored, as a background job in a script is, and
        /// signalled while it starts (it waits for a pipe's first bytes): camrtp still ends, at
        /// once, with 128 + the signal as a shell reports an interrupted command.
        @Test(arguments: [SIGINT, SIGTERM])
        func aSignalDuringStartUpEndsCamrtp(signal: Int32) throws {
            let fifo = folder.file("never.y4m")
            #expect(mkfifo(fifo, 0o600) == 0)
            // Read-write, so the pipe has a writer and camrtp waits for bytes that never come.
            let running = try CamrtpBinary.startInShell("trap '' INT TERM; exec \"$0\" \"$@\" 0<>'\(fifo)'", [
                "record", "--source", "y4m:-", "--out", folder.file("never.ivf"),
            ])
            #expect(Self.waitUntilCaught(signal, pid: running.pid), "camrtp never caught the signal")
            kill(running.pid, signal)
            let result = running.wait(timeout: TestPatience.seconds)
            #expect(!result.timedOut)
            #expect(result.status == 128 + signal, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("never.ivf")))
        }

        /// Started with SIGINT ignored, and interrupted while it streams: a clean stop, exit 0.
        @Test func aSignalWhileStreamingStopsCleanlyEvenWhenItWasIgnored() throws {
            let receiver = try LoopbackSocket(ipv6: false)
            let running = try CamrtpBinary.startInShell("trap '' INT; exec \"$0\" \"$@\"", [
                "send", "--source", "testsrc:64x48", "--to", "\(receiver.endpoint)",
            ])
            #expect(receiver.waitForFrames(5) == 5)
            kill(running.pid, SIGINT)
            let result = running.wait(timeout: TestPatience.seconds)
            #expect(!result.timedOut)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("camrtp: sent "))
        }

        /// Waits (at most 20 s) until `pid` has a handler for `signal` (`SigCgt` in its status).
        static func waitUntilCaught(_ signal: Int32, pid: pid_t) -> Bool {
            let deadline = TestPatience.deadline
            while Date() < deadline {
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                   let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
                   mask & (1 << UInt64(signal - 1)) != 0 {
                    return true
                }
                usleep(10_000)
            }
            return false
        }

        /// A camera whose every frame is corrupt fails with the reason instead of streaming
        /// nothing and succeeding.
        @Test func aCameraThatSendsOnlyCorruptFramesFails() throws {
            let result = try CamrtpBinary.run([
                "record", "--source", "fake-camera:MJPG:640x480@30:corrupt", "--frames", "1000", "--out", folder.file("x.ivf"),
            ])
            #expect(result.status == 1)
            #expect(result.stderr.contains(
                "camrtp: CameraCaptureError: /dev/video0 sent "), "\(result.stderr)")
            #expect(result.stderr.contains("MJPG frames in 3 s and none could be decoded"))
            #expect(!FileManager.default.fileExists(atPath: folder.file("x.ivf")))
        }

        /// A burst of corrupt frames is one warning with its count; the stream goes on.
        @Test func aBurstOfCorruptFramesIsOneWarning() throws {
            let statsPath = folder.file("stats.json")
            let result = try CamrtpBinary.run([
                "record", "--source", "fake-camera:MJPG:640x480@30:corrupt=10", "--frames", "30", "--out", folder.file("x.ivf"),
                "--stats-json", statsPath,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let warnings = result.stderr.split(separator: "\n").filter { $0.contains("could not be decoded") }
            #expect(warnings.count == 1)
            #expect(warnings.first?.hasSuffix(
                "10 MJPG frames in a row from /dev/video0 could not be decoded and were dropped; the camera is sending corrupt data") == true)
            // A loaded machine may also drop a good frame as late to the encoder; the corrupt
            // ones are counted apart, and every other frame is written.
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any] ?? [:]
            let dropped = stats["framesDropped"] as? [String: Int] ?? [:]
            #expect(dropped["conversionFailed"] == 10, "\(dropped)")
            let droppedUnderLoad = dropped.filter { $0.key != "conversionFailed" }.values.reduce(0, +)
            #expect(result.stderr.contains("wrote \(20 - droppedUnderLoad) frames (\(10 + droppedUnderLoad) dropped"), "\(result.stderr)")
        }

        /// Sources the encoder cannot take are bad input, named, before anything runs.
        @Test(arguments: [
            ("YUV4MPEG2 W64 H48 F1000000:1", "PATH: its frame rate, 1000000.0 fps is outside one frame an hour to 240 fps; re-time it first (ffmpeg -r 30)"),
            ("YUV4MPEG2 W16384 H16", "PATH: 16384x16 has a side outside 1...16383, the most VP8 codes; scale it down first (ffmpeg -vf scale=1920:-2)"),
        ])
        func aSourceBeyondTheEncodersLimitsIsBadInput(header: String, message: String) throws {
            let path = folder.file("limits.y4m")
            try Data(Array((header + "\nFRAME\n").utf8) + [UInt8](repeating: 128, count: 64 * 48 * 3 / 2)).write(to: URL(fileURLWithPath: path))
            for command in [["record", "--out", folder.file("x.ivf")], ["send", "--to", "127.0.0.1:9"]] {
                let result = try CamrtpBinary.run(command + ["--source", "y4m:\(path)"])
                #expect(result.status == 2)
                #expect(result.stderr == "camrtp: \(message.replacingOccurrences(of: "PATH", with: path))\n")
            }
        }

        @Test func overLongFrameParametersAreNamedAsSuch() throws {
            let path = folder.file("params.y4m")
            try Data(("YUV4MPEG2 W4 H2\nFRAME " + String(repeating: "X", count: 2000) + "\n").utf8).write(to: URL(fileURLWithPath: path))
            let result = try CamrtpBinary.run(["record", "--source", "y4m:\(path)", "--out", folder.file("x.ivf")])
            #expect(result.status == 2)
            #expect(result.stderr == "camrtp: \(path): frame 0's FRAME line runs past 1024 bytes without ending; the file is damaged\n")
        }

        /// SDPs with SRTP keys are for their owner only.
        @Test func anSDPWithAKeyIsWrittenForItsOwnerOnly() throws {
            let sdp = folder.file("key.sdp")
            let key = Data((0..<30).map { UInt8($0) }).base64EncodedString()
            let result = try CamrtpBinary.run(["sdp", "--to", "127.0.0.1:5004", "--srtp-key", key, "--sdp", sdp])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try FileManager.default.attributesOfItem(atPath: sdp)[.posixPermissions] as? Int == 0o600)
        }

        /// loopback's own SDP carries the key: it lives in a private folder under an unpredictable
        /// name only until ffmpeg has read it, so not even SIGKILL leaves it behind.
        @Test func loopbacksKeyLeavesNothingBehindEvenAfterSIGKILL() throws {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
            let temporary = folder.file("tmp")
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
            let port = UDPPorts.freePair()
            let running = try CamrtpBinary.startInShell("TMPDIR='\(temporary)/' exec \"$0\" \"$@\"", [
                "loopback", "--source", "testsrc:64x48", "--srtp", "--headless", "--port", "\(port)", "--duration", "60",
            ])
            #expect(UDPPorts.waitUntilBound(port) { running.isRunning })
            let deadline = TestPatience.deadline
            while (try? FileManager.default.contentsOfDirectory(atPath: temporary))?.isEmpty == false && Date() < deadline {
                usleep(10_000)
            }
            kill(running.pid, SIGKILL)
            _ = running.wait(timeout: 10)
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
        }

        /// A port another program holds is named up front, not after ffmpeg fails to listen.
        @Test func aBusyLoopbackPortIsNamed() throws {
            let port = UDPPorts.freePair()
            let holder = try LoopbackSocket(ipv6: false, port: port)
            let result = try CamrtpBinary.run(["loopback", "--source", "testsrc:64x48", "--frames", "5", "--headless", "--port", "\(port)"])
            #expect(result.status == 2)
            #expect(result.stderr == "camrtp: --port \(port): UDP port \(port) (RTP) is in use by another program; choose another --port\n")
            _ = holder
        }
    }
}
