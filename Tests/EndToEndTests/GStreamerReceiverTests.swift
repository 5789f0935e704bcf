import Foundation
import TestSupport
import Testing

extension EndToEnd {
    @Suite(.serialized) struct GStreamerReceiverTests {
        /// With temporal layers too: GStreamer's depayloader and decoder take every frame.
        @Test(arguments: [1, 3])
        func gstreamerDepayloadsAndDecodesTheWholeClip(temporalLayers: Int) throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "GStreamer is needed: apt-get install gstreamer1.0-tools gstreamer1.0-plugins-good")
            let clip = try SourceClip()
            let port = UDPPorts.freePair()
            let output = clip.folder.file("gst.y4m")
            let receiver = try Receivers.gstreamer(port: port, output: output)
            #expect(Receivers.waitUntilListening(receiver, port: port))
            let send = try CamrtpBinary.run([
                "send", "--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(port)", "--bitrate", "800", "--temporal-layers", "\(temporalLayers)",
            ])
            #expect(send.status == 0, "\(send.stderr)")
            // The jitter buffer holds 200 ms: stop once the last frame is in the file.
            #expect(Y4MFile.waitForFrames(60, in: output, width: 320, height: 240))
            receiver.interrupt()
            let result = receiver.wait(timeout: TestPatience.seconds)
            #expect(!result.timedOut, "gst-launch did not stop on SIGINT: \(result.stderr)")
            let decoded = try DecodedClip(path: output, source: clip.frames)
            #expect(decoded.count == 60)
            #expect(decoded.indices == (0..<60).map { $0 })
            #expect(decoded.minimumPSNR > 30, "PSNR min \(decoded.minimumPSNR)")
        }
    }
}
