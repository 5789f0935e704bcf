import ArgumentParser

struct Camrtp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camrtp",
        abstract: "Capture a camera and stream it as VP8 over RTP.",
        discussion: """
            No camera? Every command takes --source testsrc (a moving test pattern with a frame \
            counter) or --source y4m:FILE.

            Try it on one machine:  camrtp loopback --source testsrc
            Record to a file:       camrtp record --source testsrc --frames 300 --out clip.ivf
            Publish over WebRTC:    camrtp publish --source testsrc --whip http://127.0.0.1:8080/whip
            Watch in a browser:     camrtp serve --source testsrc  (open the URL it prints)

            Exit codes: 0 success, 2 bad usage or input, 1 a failure while running. Ctrl-C or \
            SIGTERM stops a running stream cleanly (exit 0); before the stream starts they end \
            camrtp at once with 130 or 143.
            """,
        version: "0.1.0",
        subcommands: [SendCommand.self, ServeCommand.self, PublishCommand.self, SDPCommand.self, LoopbackCommand.self, RecordCommand.self, SnapshotCommand.self, DevicesCommand.self, CtlCommand.self])
}
