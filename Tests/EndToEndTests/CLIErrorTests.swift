import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Bad input gets one clear line naming the input and the fix, and exit code 2.
    @Suite struct CLIErrorTests {
        @Test(arguments: [
            (["send", "--source", "testsrc", "--to", "nowhere"],
             "camrtp: --to \"nowhere\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:70000"],
             "camrtp: --to \"127.0.0.1:70000\": port must be 1…65535, got 70000"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--mtu", "16"],
             "camrtp: MTU 16 is too small: these RTP headers need at least"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--mtu", "70000"],
             "camrtp: --mtu 70000 is larger than a UDP datagram can carry (65507)"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--srtp-key", "c2hvcnQ="],
             "camrtp: --srtp-key must be base64 of 30 bytes (16-byte key ‖ 14-byte salt); got 5 bytes"),
            (["send", "--source", "webcam", "--to", "127.0.0.1:5004"],
             "camrtp: --source \"webcam\": unknown source"),
            (["send", "--source", "y4m:/nonexistent/clip.y4m", "--to", "127.0.0.1:5004"],
             "camrtp: /nonexistent/clip.y4m: cannot open: No such file or directory"),
            (["send", "--source", "testsrc"],
             "camrtp: Missing expected argument '--to <host:port>'"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--rotation", "45"],
             "camrtp: --rotation must be 0, 90, 180 or 270, not 45"),
            (["sdp", "--to", "127.0.0.1:5004", "--srtp"],
             "camrtp: --srtp needs --srtp-key here, so that send uses the same key"),
            (["record", "--source", "testsrc", "--out", "/nonexistent/dir/x.ivf", "--frames", "2"],
             "camrtp: --out /nonexistent/dir/x.ivf: the folder /nonexistent/dir does not exist"),
            (["record", "--source", "testsrc", "--out", "x.ivf", "--duration", "inf"],
             "camrtp: --duration must be more than 0 and at most 31536000 seconds (a year), not inf; leave it out to run until Ctrl-C"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--duration", "1e10"],
             "camrtp: --duration must be more than 0 and at most 31536000 seconds (a year), not 10000000000.0"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--keyframe-interval", "inf"],
             "camrtp: --keyframe-interval must be 0...3600 seconds, not inf"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--rotation", "-90"],
             "camrtp: --rotation must be 0, 90, 180 or 270, not -90"),
            (["record", "--source", "testsrc", "--out", "x.ivf", "--bitrate", "-5"],
             "camrtp: --bitrate must be 1...100000 kbit/s, not -5"),
            (["record", "--source", "testsrc:8000x8000", "--out", "x.ivf", "--frames", "2"],
             "camrtp: --source \"testsrc:8000x8000\": 8000x8000 is 64000000 pixels; camrtp takes at most 9437184, such as 3840x2160 or 4096x2304"),
            (["send", "--source", "testsrc:16384x16", "--to", "127.0.0.1:5004"],
             "camrtp: --source \"testsrc:16384x16\": expected testsrc:WxH or testsrc:WxH@FPS with sides 2...16383"),
            (["loopback", "--source", "testsrc", "--srtp", "--srtp-suite", "AEAD_AES_128_GCM"],
             "camrtp: --srtp-suite AEAD_AES_128_GCM: ffmpeg, the loopback receiver, decrypts only AES_CM_128_HMAC_SHA1_80 and AES_CM_128_HMAC_SHA1_32"),
            (["record", "--source", "fake-camera", "--pace", "fast", "--frames", "2", "--out", "x.ivf"],
             "camrtp: --pace fast is for file and test sources; a camera runs in real time"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--temporal-layers", "4"],
             "camrtp: --temporal-layers must be 1, 2 or 3, not 4"),
            (["serve", "--source", "testsrc", "--temporal-layers", "0"],
             "camrtp: --temporal-layers must be 1, 2 or 3, not 0"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--simulcast", "2"],
             "camrtp: --simulcast is for publish and serve, which pick among several streams for their receivers; send makes one stream"),
            (["record", "--source", "testsrc", "--out", "x.ivf", "--simulcast", "3"],
             "camrtp: --simulcast is for publish and serve, which pick among several streams for their receivers; record makes one stream"),
            (["loopback", "--source", "testsrc", "--simulcast", "2"],
             "camrtp: --simulcast is for publish and serve, which pick among several streams for their receivers; loopback makes one stream"),
            (["publish", "--source", "testsrc", "--whip", "http://127.0.0.1:9/whip", "--simulcast", "4"],
             "camrtp: --simulcast must be 1, 2 or 3, not 4"),
            (["publish", "--source", "testsrc:640x360", "--whip", "http://127.0.0.1:9/whip", "--simulcast", "3"],
             "camrtp: --simulcast 3: 640x360 is too small for 3 simulcast encodings: it takes at most 2 (3 need at least 960x540)"),
            (["serve", "--source", "testsrc:640x480", "--simulcast", "3"],
             "camrtp: --simulcast 3: 640x480 is too small for 3 simulcast encodings: it takes at most 2 (3 need at least 960x540)"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--playout-delay", "fast"],
             "camrtp: --playout-delay \"fast\": expected MIN-MAX in milliseconds, such as 0-200"),
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--playout-delay", "-20-100"],
             "camrtp: --playout-delay \"-20-100\": delays cannot be negative; give MIN-MAX in milliseconds, such as 0-200"),
            (["sdp", "--to", "127.0.0.1:5004", "--playout-delay", "0-41000"],
             "camrtp: --playout-delay 0-41000: the extension carries at most 40950 ms (40.95 s); give smaller values"),
            (["publish", "--source", "testsrc", "--whip", "http://127.0.0.1:9/whip", "--playout-delay", "400-100"],
             "camrtp: --playout-delay 400-100: MIN is above MAX; give the smaller value first, such as 100-400"),
            (["serve", "--source", "testsrc", "--playout-delay", "5-95"],
             "camrtp: --playout-delay 5-95: the extension counts in steps of 10 ms; give multiples of 10, such as 0-100"),
        ])
        func badInputExitsWithTwo(arguments: [String], message: String) throws {
            let result = try CamrtpBinary.run(arguments, timeout: TestPatience.seconds)
            #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("camrtp: recording") && !$0.hasPrefix("camrtp: no camera") }
            #expect(lines.count == 1, "one line, no stack trace: \(result.stderr)")
        }

        @Test func helpTeachesAndSucceeds() throws {
            let result = try CamrtpBinary.run(["send", "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("--to <host:port>"))
            #expect(result.stdout.contains("camrtp send --to 203.0.113.7:5004 --sdp cam.sdp"))
            // ffplay with -fflags nobuffer throws the first keyframe away without it.
            #expect(result.stdout.contains("-framedrop -nofind_stream_info cam.sdp"))
        }

        /// A usage error points at the help of the command that was used.
        @Test(arguments: [
            (["send", "--source", "testsrc", "--to", "127.0.0.1:5004", "--rotation", "45"], "camrtp send --help"),
            (["record", "--bogus"], "camrtp record --help"),
            (["--bogus"], "camrtp --help"),
        ])
        func aUsageErrorPointsAtTheCommandsHelp(arguments: [String], help: String) throws {
            let result = try CamrtpBinary.run(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.hasSuffix(" (see '\(help)')\n"), "\(result.stderr)")
        }

        @Test func aReceiverThatIsNotListeningDoesNotStopTheStream() throws {
            let port = UDPPorts.freePair()
            let result = try CamrtpBinary.run(["send", "--source", "testsrc:160x120", "--frames", "20", "--to", "127.0.0.1:\(port)"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("sent 20 frames"))
            #expect(result.stderr.contains("refused (is the receiver running?)"))
        }
    }
}
