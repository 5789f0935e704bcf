import Foundation
import SDP
import Testing
import TestSupport

/// Headless Chromium takes our descriptions: it answers our offer (and the answer passes
/// `acceptAnswer`), and it accepts our answers to its own recvonly offer and to its
/// audio + video + data offer (rejected sections, BUNDLE reduced to video).
@Suite("SDP accepted by Chromium")
struct ChromiumInteropTests {
    typealias Setup = NegotiationSetup

    /// Creates the page's own offers afresh; they have the fixtures' shape (same mids and
    /// payload types), so answers written for the fixtures fit them.
    private static let script = """
        const input = JSON.parse(document.getElementById('input').textContent);
        async function step(name, run) {
          try { output[name] = await run(); } catch (error) { output[name] = 'error: ' + error; }
        }
        const output = {};
        (async () => {
          await step('answer', async () => {
            const pc = new RTCPeerConnection();
            await pc.setRemoteDescription({type: 'offer', sdp: input.offer});
            await pc.setLocalDescription(await pc.createAnswer());
            const sdp = pc.localDescription.sdp;
            pc.close();
            return sdp;
          });
          await step('recvonly', async () => {
            const pc = new RTCPeerConnection();
            pc.addTransceiver('video', {direction: 'recvonly'});
            await pc.setLocalDescription(await pc.createOffer());
            await pc.setRemoteDescription({type: 'answer', sdp: input.recvonlyAnswer});
            const directions = pc.getTransceivers().map(t => t.currentDirection);
            pc.close();
            return 'accepted ' + directions.join(',');
          });
          await step('sendrecv', async () => {
            const pc = new RTCPeerConnection();
            pc.addTransceiver('audio', {direction: 'sendrecv'});
            pc.addTransceiver('video', {direction: 'sendrecv'});
            pc.createDataChannel('d');
            await pc.setLocalDescription(await pc.createOffer());
            await pc.setRemoteDescription({type: 'answer', sdp: input.sendrecvAnswer});
            const directions = pc.getTransceivers().map(t => t.currentDirection);
            pc.close();
            return 'accepted ' + directions.join(',');
          });
          await fetch('/result', {method: 'POST', body: JSON.stringify(output)});
        })();
        """

    @Test func chromiumAnswersOurOfferAndAcceptsOurAnswers() throws {
        try #require(ExternalTool.locate("chromium") != nil, "chromium is needed: apt-get install chromium")
        let offer = Setup.publisher.makeOffer()
        let input = [
            "offer": offer.serialized(),
            "recvonlyAnswer": try Setup.server.makeAnswer(to: Setup.parse(.chromiumRecvonlyOffer)).sessionDescription.serialized(),
            "sendrecvAnswer": try Setup.publisher.makeAnswer(to: Setup.parse(.chromiumSendrecvOffer)).sessionDescription.serialized(),
        ]
        let output = try runInChromium(input: input)

        let answerText = try #require(output["answer"], "no answer: \(output)")
        let answer = try SessionDescription(parsing: answerText)
        let video = try Setup.publisher.acceptAnswer(answer, to: offer)
        #expect(video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(video.fec == FECFormats(red: 98, ulpfec: 99), "Chromium takes RED and ULPFEC")
        #expect(video.feedback == Setup.sender.feedback)
        #expect(Set(video.extensions.map(\.uri)) == Set(Setup.sender.extensions.map(\.uri)))
        #expect(output["recvonly"] == "accepted recvonly")
        // The rejected audio transceiver is stopped and leaves the list; video receives.
        #expect(output["sendrecv"] == "accepted recvonly")
    }

    /// Serves the page, starts Chromium on it and waits for the page to post its results.
    private func runInChromium(input: [String: String]) throws -> [String: String] {
        let folder = TemporaryDirectory()
        let json = String(decoding: try JSONSerialization.data(withJSONObject: input, options: [.sortedKeys]), as: UTF8.self)
        let server = try PageServer(page: """
            <!doctype html><html><body>
            <script type="application/json" id="input">\(json)</script>
            <script>\(Self.script)</script></body></html>
            """)
        let chromium = try ExternalTool("chromium").start([
            "--headless=new", "--no-sandbox", "--disable-gpu", "--allow-loopback-in-peer-connection",
            "--user-data-dir=\(folder.file("profile"))", server.url,
        ])
        let posted = server.waitForResult(timeout: 120)
        let exit = chromium.wait(timeout: 0)
        guard let posted else {
            Issue.record("the page posted no result (Chromium exited \(exit.status)):\n\(exit.stderr.suffix(2000))")
            return [:]
        }
        return try JSONSerialization.jsonObject(with: Data(posted.utf8)) as? [String: String] ?? [:]
    }
}
