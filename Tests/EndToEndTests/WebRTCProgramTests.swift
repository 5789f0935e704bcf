import Foundation
import Glibc
import TestSupport
import Testing

extension EndToEnd {
    /// camrtp streams and records without the WebRTC and HTTP libraries, and hands `publish`,
    /// `serve` and `--metrics` to camrtp-webrtc beside it, in the same process.
    @Suite struct WebRTCProgramTests {
        let folder = TemporaryDirectory()

        /// The libraries only camrtp-webrtc needs: ICE (libnice and GLib, GnuTLS under it) and DTLS
        /// (OpenSSL).
        static let webRTCLibraries = ["libnice", "libglib-2.0", "libgio-2.0", "libgobject-2.0", "libgnutls", "libssl", "libcrypto"]

        /// A running camrtp's executable and the shared libraries it has mapped.
        static func image(of pid: pid_t) throws -> (executable: String, libraries: Set<String>) {
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
            // /proc files report a size of 0: read to the end.
            let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
            defer { try? file.close() }
            let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            let libraries = maps.split(separator: "\n").compactMap { line -> String? in
                guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/") else { return nil }
                return URL(fileURLWithPath: String(path)).lastPathComponent
            }
            return (URL(fileURLWithPath: executable).lastPathComponent, Set(libraries))
        }

        static func maps(_ libraries: Set<String>, any prefixes: [String]) -> [String] {
            libraries.filter { library in prefixes.contains { library.hasPrefix($0 + ".so") } }.sorted()
        }

        @Test func aPlainStreamMapsNoWebRTCLibrary() throws {
            let port = UDPPorts.freePair()
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:160x120", "--to", "127.0.0.1:\(port)", "--duration", "600",
            ])
            defer { sender.interrupt(); _ = sender.wait(timeout: TestPatience.seconds) }
            try #require(sender.waitForLine(containing: "camrtp: sending", in: .stderr) != nil, "\(sender.output(.stderr))")
            let (executable, libraries) = try Self.image(of: sender.pid)
            #expect(executable == "camrtp")
            #expect(libraries.contains { $0.hasPrefix("libvpx.so") }, "\(libraries.sorted())")
            #expect(Self.maps(libraries, any: Self.webRTCLibraries).isEmpty)
        }

        /// `--metrics` needs swift-nio and Hummingbird: the same process goes on as camrtp-webrtc.
        @Test func sendWithMetricsContinuesInCamrtpWebRTC() throws {
            let port = UDPPorts.freePair()
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:160x120", "--to", "127.0.0.1:\(port)", "--duration", "600", "--metrics", "127.0.0.1:0",
            ])
            defer { sender.interrupt(); _ = sender.wait(timeout: TestPatience.seconds) }
            try #require(sender.waitForLine(containing: "camrtp: sending", in: .stderr) != nil, "\(sender.output(.stderr))")
            #expect(try Self.image(of: sender.pid).executable == "camrtp-webrtc")
            #expect(sender.output(.stderr).contains("camrtp: metrics at http://127.0.0.1:"))
        }

        @Test func publishHelpIsCamrtpWebRTCs() throws {
            let result = try CamrtpBinary.run(["publish", "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE: camrtp publish") && result.stdout.contains("--whip <url>"), "\(result.stdout)")
        }

        /// A camrtp copied without camrtp-webrtc streams as before, and says what is missing for
        /// the rest: one line, exit 1.
        @Test(arguments: [
            (["publish", "--whip", "http://127.0.0.1:9/whip"], "publish"),
            (["serve"], "serve"),
            (["send", "--to", "127.0.0.1:9", "--metrics", "127.0.0.1:0"], "--metrics"),
        ])
        func withoutCamrtpWebRTCBesideItTheCommandIsOneLine(arguments: [String], what: String) throws {
            let alone = folder.file("camrtp")
            try FileManager.default.copyItem(atPath: CamrtpBinary.path, toPath: alone)
            let result = try ExternalTool(alone).run(arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "camrtp: \(what) runs in camrtp-webrtc, which should be beside camrtp at \(folder.file("camrtp-webrtc")): "
                + "No such file or directory; `swift build` builds both\n")
            let sdp = try ExternalTool(alone).run(["sdp", "--to", "127.0.0.1:5004"])
            #expect(sdp.status == 0 && sdp.stdout.hasPrefix("v=0"), "\(sdp.stderr)")
        }
    }
}
