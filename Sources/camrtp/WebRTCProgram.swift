import ArgumentParser
import CamrtpCLI
import Glibc

/// camrtp-webrtc, beside camrtp: camrtp with WebRTC (libnice, OpenSSL) and HTTP (swift-nio,
/// Hummingbird, async-http-client, swift-prometheus). camrtp hands it the commands that need
/// them, replacing itself (`execv`: the same process, arguments, streams and signals), so that
/// `send`, `record` and the rest never map, relocate or initialise those libraries.
enum WebRTCProgram: MetricsEndpoint {
    static let name = "camrtp-webrtc"

    /// Runs this command line in camrtp-webrtc, for `what` (the command or option that needs it);
    /// returns only by throwing.
    static func run(for what: String) throws -> Never {
        let path = siblingPath()
        var argv = ([path] + CommandLine.arguments.dropFirst()).map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        throw CLIError.runtime("\(what) runs in \(name), which should be beside camrtp at \(path): \(reason); `swift build` builds both")
    }

    /// `send --metrics` serves its page over HTTP: the run continues in camrtp-webrtc.
    static func start(_ options: MetricsOptions) async throws -> MetricsListener? {
        guard options.metrics != nil else { return nil }
        try run(for: "--metrics")
    }

    /// camrtp-webrtc in the folder of this executable (symlinks resolved).
    private static func siblingPath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink("/proc/self/exe", &buffer, buffer.count)
        let executable = count > 0 ? String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        guard let slash = executable.lastIndex(of: "/") else { return name }
        return executable[...slash] + name
    }
}

/// `camrtp publish …`, run by camrtp-webrtc; `camrtp publish --help` shows its options there.
struct PublishInWebRTCProgram: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish", abstract: CommandAbstract.publish,
        discussion: "Runs in \(WebRTCProgram.name), beside camrtp; `camrtp publish --help` lists its options.", helpNames: [])

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try WebRTCProgram.run(for: "publish") }
}

/// `camrtp serve …`, run by camrtp-webrtc; `camrtp serve --help` shows its options there.
struct ServeInWebRTCProgram: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: CommandAbstract.serve,
        discussion: "Runs in \(WebRTCProgram.name), beside camrtp; `camrtp serve --help` lists its options.", helpNames: [])

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try WebRTCProgram.run(for: "serve") }
}
