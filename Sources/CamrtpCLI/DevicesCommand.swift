import ArgumentParser
import Capture

package struct DevicesCommand: CamrtpCommand {
    package static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the cameras with their formats, frame rates and controls.",
        discussion: """
            Cameras are the /dev/video* nodes that capture video (not encoders or metadata nodes). \
            With none, it says so and succeeds. Use a camera with --source camera:/dev/videoN.
            """)

    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup package var logging: LoggingOptions

    package init() {}

    package func execute() async throws {
        let report = CameraDeviceReport(capturer: CameraVideoCapturer())
        try StandardStreams.print((json ? try report.json() : report.text) + "\n")
    }
}
