import ArgumentParser
import CameraRTP
import MediaCore
import StreamControl

/// `send --control-socket PATH`: take live commands (`camrtp ctl`) while streaming.
struct ControlSocketOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Take commands while streaming on this Unix socket (mode 0600, removed at the end): camrtp ctl --socket PATH COMMAND.",
        valueName: "path"))
    var controlSocket: String?

    func validate() throws {
        guard let controlSocket else { return }
        do {
            try ControlSocketServer.checkPath(controlSocket)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Runs the stream (`body`) while a control socket serves `pipeline`, when one was asked
    /// for. A path that cannot hold the socket fails before anything streams.
    func serving<Output: Sendable>(_ pipeline: StreamPipeline, while body: () async throws -> Output) async throws -> Output {
        guard let controlSocket else { return try await body() }
        let executor = StreamCommandExecutor(pipeline: pipeline)
        let server: ControlSocketServer
        do {
            server = try ControlSocketServer(path: controlSocket, handler: executor.handle)
        } catch {
            if case .system = error { throw CLIError.runtime("\(error)") }
            throw CLIError.usage("\(error)")
        }
        printNote("taking commands on \(controlSocket): camrtp ctl --socket \(controlSocket) stats")
        let outcome: Result<Output, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        // Stopping joins the server's thread, which may be finishing a command: not on the pool.
        await MediaThread.run(name: "camrtp.ctl.stop") { server.stop() }
        return try outcome.get()
    }
}
