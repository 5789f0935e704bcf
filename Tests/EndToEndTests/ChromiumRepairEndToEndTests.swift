import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Chromium on camrtp's RED and ULPFEC: `camrtp serve --fec on` answers the page's offer with
    /// red and ulpfec and sends every media packet in RED with ULPFEC packets after them; through
    /// 5 % loss (nftables in the namespace, as `WHEPServeEndToEndTests` loses media) Chromium
    /// unwraps and decodes them. Chromium 156 reports no fecPacketsReceived for video (its
    /// inbound-rtp has no FEC fields), so camrtp's own count of the FEC packets it sent that
    /// viewer stands for it.
    @Suite(.serialized) struct ChromiumRepairEndToEndTests {
        @Test(.timeLimit(.minutes(3)))
        func chromiumDecodesREDWithFECThroughLoss() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try WHEPServeEndToEndTests.Bed(["--fec", "on"])
            defer { bed.stop() }
            try bed.dropLargeDatagrams(percent: 5)
            let result = try bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base, "--frames", "150", "--min-nacks", "1",
            ]).wait(timeout: TestPatience.seconds + 30)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(bed.server.output(.stderr))")
            let events = WHEPServeEndToEndTests.events(result.stdout)
            let report = try #require(events.last { $0["event"] as? String == "inbound" }?["report"] as? [String: Any], "\(result.stdout)")
            let figure = { (key: String) in (report[key] as? NSNumber)?.intValue ?? 0 }
            let left = try #require(bed.server.waitForLine(containing: "viewer 1 left", in: .stderr), "\(bed.server.output(.stderr))")
            let fecSent = Self.fecPackets(in: left)
            print("Chromium with --fec on through 5 % loss: \(figure("framesDecoded")) frames decoded, \(figure("packetsLost")) packets lost, "
                + "\(figure("nackCount")) NACKs, \(figure("freezeCount")) freezes; \(left)")
            #expect(figure("framesDecoded") >= 150)
            #expect(figure("packetsLost") > 0, "the path must have lost packets for this to mean anything")
            #expect(fecSent > 0, "\(left)")
        }

        /// N of the "N FEC packets" in serve's line about a viewer that left.
        static func fecPackets(in line: String) -> Int {
            guard let range = line.range(of: " FEC packets") else { return 0 }
            return Int(line[..<range.lowerBound].split(separator: " ").last ?? "") ?? 0
        }
    }
}
