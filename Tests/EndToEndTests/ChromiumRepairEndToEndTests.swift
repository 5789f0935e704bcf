import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Chromium's FEC receiver on camrtp's RED and ULPFEC: `camrtp serve --fec on` answers the
    /// page's offer with red and ulpfec, and through 5 % loss (nftables in the namespace, as
    /// `WHEPServeEndToEndTests` loses media) Chromium counts the FEC packets it received in its
    /// own getStats and keeps decoding.
    @Suite(.serialized) struct ChromiumRepairEndToEndTests {
        @Test(.timeLimit(.minutes(3)))
        func chromiumReceivesFECThroughTheViewerPage() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try WHEPServeEndToEndTests.Bed(["--fec", "on"])
            defer { bed.stop() }
            try bed.dropLargeDatagrams(percent: 5)
            let result = try bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base, "--frames", "90",
                "--min-fec-packets", "20",
            ]).wait(timeout: TestPatience.seconds + 30)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(bed.server.output(.stderr))")
            let events = WHEPServeEndToEndTests.events(result.stdout)
            let report = try #require(events.last { $0["event"] as? String == "inbound" }?["report"] as? [String: Any], "\(result.stdout)")
            let figure = { (key: String) in (report[key] as? NSNumber)?.intValue ?? 0 }
            print("Chromium with --fec on through 5 % loss: \(figure("framesDecoded")) frames decoded, \(figure("fecPacketsReceived")) FEC packets "
                + "received (\(figure("fecPacketsDiscarded")) discarded), \(figure("packetsLost")) packets lost, \(figure("nackCount")) NACKs")
            #expect(figure("fecPacketsReceived") >= 20)
            #expect(figure("framesDecoded") >= 90)
        }
    }
}
