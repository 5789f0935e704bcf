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

/// A command camrtp-webrtc runs: `publish` or `serve`.
protocol WebRTCProgramCommand {
    static var name: String { get }
    static var abstract: String { get }
}

enum Publish: WebRTCProgramCommand {
    static let name = "publish"
    static let abstract = CommandAbstract.publish
}

enum Serve: WebRTCProgramCommand {
    static let name = "serve"
    static let abstract = CommandAbstract.serve
}

/// `camrtp publish …` or `camrtp serve …`, listed in camrtp's help and handed to camrtp-webrtc
/// whole, `--help` included, which that program answers with the command's options.
struct HandedOver<Command: WebRTCProgramCommand>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Command.name, abstract: Command.abstract,
            discussion: "Runs in \(WebRTCProgram.name), beside camrtp; `camrtp \(Command.name) --help` lists its options.",
            helpNames: [])
    }

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try WebRTCProgram.run(for: Command.name) }
}
