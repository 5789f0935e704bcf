import ArgumentParser
import Glibc
import ImageEncoding
import MediaCore
import StreamControl

package struct CtlCommand: CamrtpCommand {
    package static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send one command to a running `camrtp send --control-socket PATH` and print its answer.",
        discussion: """
            Commands:
              snapshot FILE         a still of the next frame (.jpg, .jpeg or .png)
              keyframe              the next frame is a keyframe
              bitrate KBPS          the encoder's target, 1...100000 kbit/s
              switch [CAMERA]       another camera without stopping the stream: front,
                                    back or a device; alone, the other one
              control NAME=VALUE    a camera control: focus_absolute=40, torch=on,
                                    exposure_time_absolute=150, zoom_absolute=200
              orientation NAME      how the device is held: portrait, landscapeLeft,
                                    landscapeRight, portraitUpsideDown, faceUp, ...
              mirror on|off         flip the picture left to right
              stats                 the stream's figures and its controls' settings

            The answer is one line of JSON on stdout. Exit status: 0 done, 2 a command or \
            value that cannot be done as asked (nothing changed), 1 the stream is not \
            reachable or failed.

              camrtp send --source fake-camera:back=YUYV:640x480,front=YUYV:320x240 \\
                --to 127.0.0.1:5004 --control-socket cam.sock
              camrtp ctl --socket cam.sock switch front
              camrtp ctl --socket cam.sock snapshot still.jpg
            """)

    @Option(help: ArgumentHelp("The stream's control socket, as given to send --control-socket.", valueName: "path"))
    var socket: String

    @Argument(help: ArgumentHelp("The command and its argument, such as: bitrate 800.", valueName: "command"))
    var words: [String] = []

    @Option(help: ArgumentHelp("How long to wait for the answer, in seconds.", valueName: "seconds"))
    var timeout: Double = 10

    @OptionGroup package var logging: LoggingOptions

    package init() {}

    package func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be in (0, 3600] seconds, not \(timeout)") }
    }

    package func execute() async throws {
        let command = try parsedCommand()
        let (socket, timeoutMs) = (socket, Int32(timeout * 1000))
        let outcome = await MediaThread.run(name: "camrtp.ctl") {
            Result { () throws(ControlSocketError) in try ControlSocketClient.send(command, to: socket, timeoutMs: timeoutMs) }
        }
        let answer: (line: String, reply: StreamControlReply)
        switch outcome {
        case .success(let value):
            answer = value
        case .failure(let error):
            if case .badPath = error { throw CLIError.usage("\(error)") }
            throw CLIError.runtime("\(error)")
        }
        guard answer.reply.ok else {
            let message = "ctl \(words.joined(separator: " ")): \(answer.reply.error ?? "failed")"
            throw answer.reply.failure == .invalid ? CLIError.usage(message) : CLIError.runtime(message)
        }
        print(answer.line)
    }

    /// The command from the words, with a snapshot's file made absolute against this folder
    /// and checked here, before the stream is asked.
    private func parsedCommand() throws -> StreamCommand {
        var words = words
        if words.first == "snapshot", words.count == 2, !words[1].hasPrefix("/") {
            words[1] = currentDirectory() + "/" + words[1]
        }
        do {
            let command = try StreamCommand(words: words)
            if case .snapshot(let path) = command { _ = try ImageFile.checkOutput(path) }
            return command
        } catch let error as OutputFileError {
            throw CLIError.usage("ctl snapshot: \(error)")
        } catch {
            throw CLIError.usage("ctl: \(error)")
        }
    }

    private func currentDirectory() -> String {
        guard let folder = getcwd(nil, 0) else { return "." }
        defer { free(folder) }
        return String(cString: folder)
    }
}
