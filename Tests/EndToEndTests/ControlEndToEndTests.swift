import Foundation
import StreamControl
import TestSupport
import Testing

extension EndToEnd {
    /// `camrtp send --control-socket` with `camrtp ctl`, as a user runs them, decoded by ffmpeg.
    @Suite(.serialized) struct ControlEndToEndTests {
        static let phone = "fake-camera:back=YUYV:640x480@30,front=YUYV:320x240@30"

        init() throws {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        }

        /// One decoded frame, as ffmpeg's showinfo filter reports it.
        struct ShownFrame: Equatable {
            var ptsSeconds: Double
            var width: Int
            var height: Int
        }

        /// The frames in ffmpeg's showinfo lines: `... pts_time:1.23 ... s:640x480 ...`.
        static func shownFrames(in log: String) -> [ShownFrame] {
            log.split(separator: "\n").compactMap { line -> ShownFrame? in
                guard line.contains("Parsed_showinfo"), line.contains(" n:") else { return nil }
                let fields = line.split(separator: " ")
                guard let pts = fields.first(where: { $0.hasPrefix("pts_time:") }).flatMap({ Double($0.dropFirst(9)) }),
                      let size = fields.first(where: { $0.hasPrefix("s:") })?.dropFirst(2).split(separator: "x"),
                      size.count == 2, let width = Int(size[0]), let height = Int(size[1]) else { return nil }
                return ShownFrame(ptsSeconds: pts, width: width, height: height)
            }
        }

        /// Runs `camrtp ctl --socket SOCKET words…`.
        static func ctl(_ socket: String, _ words: String...) throws -> ExternalTool.Result {
            try CamrtpBinary.run(["ctl", "--socket", socket] + words, timeout: TestPatience.seconds)
        }

        static func reply(_ result: ExternalTool.Result) throws -> StreamControlReply {
            try JSONDecoder().decode(StreamControlReply.self, from: Data(result.stdout.utf8))
        }

        /// Asks for stats until `condition` holds (at most 20 s): the stream's own count, not the clock.
        static func waitForStats(_ socket: String, until condition: (StreamControlReply) -> Bool) throws -> Bool {
            let deadline = TestPatience.deadline
            while Date() < deadline {
                let result = try ctl(socket, "stats")
                if result.status == 0, condition(try reply(result)) { return true }
                usleep(50_000)
            }
            return false
        }

        static func waitForSocket(_ path: String, while running: ExternalTool.Running) -> Bool {
            let deadline = TestPatience.deadline
            while Date() < deadline && running.isRunning {
                var status = stat()
                if lstat(path, &status) == 0 { return status.st_mode & S_IFMT == S_IFSOCK }
                usleep(20_000)
            }
            return false
        }

        @Test func everyCommandWorksDuringASendAndSwitchingDecodesAtTheNewSize() throws {
            let folder = TemporaryDirectory()
            let port = UDPPorts.freePair()
            let sdp = folder.file("s.sdp"), socket = folder.file("cam.sock"), still = folder.file("still.jpg")
            let statsFile = folder.file("stats.json")
            let arguments = ["--source", Self.phone, "--to", "127.0.0.1:\(port)"]
            try CamrtpBinary.run(["sdp"] + arguments).stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
            // ffmpeg ends at the BYE the interrupted sender sends; until then it waits as long as a test may.
            let receiver = try ExternalTool("ffmpeg").start([
                "-nostdin", "-loglevel", "info", "-threads", "1", "-listen_timeout", "\(Int(TestPatience.seconds))", "-localaddr", "127.0.0.1",
                "-protocol_whitelist", "file,udp,rtp", "-i", sdp, "-fps_mode", "passthrough", "-vf", "showinfo", "-f", "null", "-",
            ])
            #expect(Receivers.waitUntilListening(receiver, port: port))
            let send = try CamrtpBinary.tool.start(
                ["send"] + arguments + ["--control-socket", socket, "--duration", "120", "--keyframe-interval", "0", "--stats-json", statsFile])
            try #require(Self.waitForSocket(socket, while: send), "the control socket appears")
            #expect(try Self.waitForStats(socket) { ($0.stats?.framesEncoded ?? 0) >= 15 })

            // switch: to the front camera, at its own size.
            let front = try Self.ctl(socket, "switch", "front")
            #expect(front.status == 0, "\(front.stderr)")
            #expect(try Self.reply(front).camera?.width == 320)
            #expect(try Self.waitForStats(socket) { $0.status?.camera?.path == "/dev/video1" && ($0.stats?.framesEncoded ?? 0) >= 30 })
            // keyframe and bitrate: visible in the figures.
            let keyframesBefore = try Self.reply(Self.ctl(socket, "stats")).stats?.keyframes ?? 0
            #expect(try Self.ctl(socket, "keyframe").stdout == #"{"ok":true}"# + "\n")
            #expect(try Self.waitForStats(socket) { ($0.stats?.keyframes ?? 0) > keyframesBefore })
            #expect(try Self.ctl(socket, "bitrate", "600").stdout == #"{"ok":true,"targetBitrateKbps":600}"# + "\n")
            // control, mirror, snapshot.
            #expect(try Self.ctl(socket, "control", "zoom_absolute=300").stdout == #"{"control":{"name":"zoom_absolute","value":300},"ok":true}"# + "\n")
            #expect(try Self.ctl(socket, "mirror", "on").status == 0)
            let snapshot = try Self.ctl(socket, "snapshot", still)
            #expect(snapshot.status == 0, "\(snapshot.stderr)")
            #expect(try Self.reply(snapshot).snapshot?.width == 320)
            #expect(FileManager.default.fileExists(atPath: still))
            // switch back, then hold the device upright: send rotates the pixels, so 480×640.
            #expect(try Self.ctl(socket, "switch").status == 0)
            let encoded = try Self.reply(Self.ctl(socket, "stats")).stats?.framesEncoded ?? 0
            #expect(try Self.waitForStats(socket) { ($0.stats?.framesEncoded ?? 0) >= encoded + 15 })
            #expect(try Self.ctl(socket, "orientation", "portrait").status == 0)
            let status = try Self.reply(Self.ctl(socket, "stats")).status
            #expect(status?.targetBitrateKbps == 600 && status?.mirror == true && status?.orientation == .portrait)
            #expect(status?.camera?.path == "/dev/video0" && status?.camera?.position == .back && status?.camera?.pixelFormat == "YUYV")
            #expect(try Self.waitForStats(socket) { ($0.stats?.framesEncoded ?? 0) >= encoded + 30 })

            send.interrupt()
            let sent = send.wait(timeout: TestPatience.seconds)
            #expect(sent.status == 0, "\(sent.stderr)")
            let received = receiver.wait(timeout: TestPatience.seconds)
            #expect(!received.timedOut)
            #expect(!FileManager.default.fileExists(atPath: socket), "the socket goes with the stream")

            let frames = Self.shownFrames(in: received.stderr)
            let stats = try JSONDecoder().decode(FiguresOnDisk.self, from: Data(contentsOf: URL(fileURLWithPath: statsFile)))
            #expect(frames.count == stats.framesEncoded, "ffmpeg decoded every frame sent")
            var sizes: [String] = []
            for frame in frames where sizes.last != "\(frame.width)x\(frame.height)" { sizes.append("\(frame.width)x\(frame.height)") }
            #expect(sizes == ["640x480", "320x240", "640x480", "480x640"])
            for index in frames.indices.dropFirst() where frames[index].width != frames[index - 1].width {
                let gapMs = (frames[index].ptsSeconds - frames[index - 1].ptsSeconds) * 1000
                print(String(format: "measured: ffmpeg decoded %dx%d -> %dx%d with %.1f ms between frames (frame interval 33.3 ms)",
                             frames[index - 1].width, frames[index - 1].height, frames[index].width, frames[index].height, gapMs))
            }
        }

        /// The part of `--stats-json` this test reads.
        struct FiguresOnDisk: Decodable {
            var framesEncoded: Int
        }

        @Test func badPathsUnsupportedControlsAndUnknownCamerasGetOneLineAndExitTwo() throws {
            let folder = TemporaryDirectory()
            let port = UDPPorts.freePair()
            let notes = folder.file("notes.txt")
            try "keep".write(toFile: notes, atomically: false, encoding: .utf8)
            let base = ["send", "--source", "fake-camera:front=YUYV:320x240", "--to", "127.0.0.1:\(port)", "--frames", "5"]
            for (path, message) in [
                (folder.file("missing/cam.sock"), "its folder does not exist"),
                (notes, "exists and is not a socket; refusing to replace it"),
            ] {
                let result = try CamrtpBinary.run(base + ["--control-socket", path])
                #expect(result.status == 2)
                #expect(result.stderr == "camrtp: control socket \(path): \(message) (see 'camrtp send --help')\n", "nothing streamed")
            }
            #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep")

            let absent = try Self.ctl(folder.file("absent.sock"), "stats")
            #expect(absent.status == 1)
            #expect(absent.stderr.hasPrefix("camrtp: control socket \(folder.file("absent.sock")): no stream listens here"))
            #expect(try Self.ctl(notes, "stats").status == 2)
            let unknown = try Self.ctl(notes, "warp")
            #expect(unknown.status == 2 && unknown.stderr.split(separator: "\n").count == 1)
            #expect(try Self.ctl(notes, "snapshot", folder.file("missing/still.jpg")).status == 2)

            let socket = folder.file("cam.sock")
            let send = try CamrtpBinary.tool.start(
                ["send", "--source", "fake-camera:front=YUYV:320x240", "--to", "127.0.0.1:\(port)", "--control-socket", socket, "--duration", "120"])
            try #require(Self.waitForSocket(socket, while: send))
            for (words, message) in [
                (["control", "torch=on"], "camrtp: ctl control torch=on: CameraControlError: /dev/video0 has no flash_led_mode control\n"),
                (["switch", "back"], "camrtp: ctl switch back: StreamControlError: there is no camera to switch to for a back camera; the cameras are /dev/video0\n"),
                (["control", "zoom_absolute=9999"], "camrtp: ctl control zoom_absolute=9999: CameraControlError: 9999 is not a valid zoom_absolute; valid values are 100...500 in steps of 1\n"),
            ] {
                let result = try CamrtpBinary.run(["ctl", "--socket", socket] + words)
                #expect(result.status == 2 && result.stdout.isEmpty)
                #expect(result.stderr == message)
            }
            send.interrupt()
            #expect(send.wait(timeout: TestPatience.seconds).status == 0)
        }
    }
}
