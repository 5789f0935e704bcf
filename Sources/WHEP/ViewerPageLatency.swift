/// The viewer page's latency panel, kept apart from the rest of the page: how long after capture
/// the frames the page displays reach the glass, and a switch between "lowest latency" and
/// "smooth".
///
/// Glass-to-glass latency is `expectedDisplayTime - captureTime` of `requestVideoFrameCallback`'s
/// metadata. Both are `DOMHighResTimeStamp`s on the page's own clock (relative to
/// `performance.timeOrigin`, as `performance.now()`), so no epoch conversion enters: Chromium
/// turns the sender's capture time into this clock from the RTP timestamp and camrtp's RTCP
/// sender reports, once DLRR has told it the round-trip time. The panel shows the median and the
/// 95th percentile over the last 5 s, the share of the frames displayed then that came with a
/// capture time, and the receiver's freezes; where the browser gives no capture time it says so.
///
/// The switch works per viewer, at once and without reconnecting, on the browser's side:
/// "smooth" asks the jitter buffer to hold frames for at least `smoothTargetMs`
/// (`RTCRtpReceiver.jitterBufferTarget`, or Chromium's older `playoutDelayHint`), time for a lost
/// packet's retransmission to arrive before its frame is due; "lowest latency" drops that
/// floor. The playout delay `serve --playout-delay` sends bounds both: its MAX caps what "smooth"
/// can hold, and with MIN 0 and MAX at most 500 ms Chromium shows each frame as soon as it is
/// decoded in "lowest latency". The page also asks the browser to negotiate abs-capture-time,
/// which Chromium leaves out of its offers unless asked.
///
/// `window.camrtpViewer.latency` holds the figures for tests and benchmarks, with the last
/// abs-capture-time the browser read (`getSynchronizationSources()`).
enum ViewerPageLatency {
    /// What "smooth" asks the jitter buffer to hold, in milliseconds.
    static let smoothTargetMs = 200

    static let style = """
    #latency { display: flex; gap: 12px; align-items: center; padding: 4px 12px; background: #1b1b1b; font-size: 13px; }
    #latency b { font-variant-numeric: tabular-nums; }
    #l-note { color: #aaa; }
    """

    static let markup = """
    <section id="latency" aria-label="latency">
      <span>glass to glass: <b id="l-figures">waiting for frames</b></span>
      <label>playout <select id="l-mode"><option value="lowest">lowest latency</option><option value="smooth">smooth</option></select></label>
      <span id="l-freezes"></span>
      <span id="l-note"></span>
    </section>
    """

    static let script = """
    const latency = (() => {
      const windowMs = 5000, smoothTargetMs = \(smoothTargetMs);
      const video = document.getElementById("video");
      const figures = document.getElementById("l-figures"), note = document.getElementById("l-note");
      const select = document.getElementById("l-mode");
      const state = { mode: params.get("latency") === "smooth" ? "smooth" : "lowest", p50Ms: null, p95Ms: null,
                      framesShown: 0, framesWithCaptureTime: 0, freezeCount: null, totalFreezesDuration: null,
                      jitterBufferDelayMs: null, senderCaptureTime: null,
                      supported: "requestVideoFrameCallback" in HTMLVideoElement.prototype };
      window.camrtpViewer.latency = state;
      select.value = state.mode;
      let receiver = null, recent = [];

      // Displayed frames: capture to expected display, both on this page's clock.
      function shown(now, metadata) {
        const timed = typeof metadata.captureTime === "number";
        state.framesShown += 1;
        if (timed) state.framesWithCaptureTime += 1;
        recent.push({ at: metadata.expectedDisplayTime, ms: timed ? metadata.expectedDisplayTime - metadata.captureTime : null });
        video.requestVideoFrameCallback(shown);
      }
      if (state.supported) video.requestVideoFrameCallback(shown);

      function percentile(sorted, p) { return sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))]; }

      async function update() {
        const horizon = performance.now() - windowMs;
        recent = recent.filter((sample) => sample.at >= horizon);
        const sorted = recent.filter((sample) => sample.ms !== null).map((sample) => sample.ms).sort((a, b) => a - b);
        state.p50Ms = sorted.length ? percentile(sorted, 50) : null;
        state.p95Ms = sorted.length ? percentile(sorted, 95) : null;
        if (!state.supported) {
          note.textContent = "this browser has no requestVideoFrameCallback, so it cannot tell when frames were captured";
        } else if (state.framesShown > 0 && state.framesWithCaptureTime === 0) {
          note.textContent = "this browser gives displayed frames no capture time (requestVideoFrameCallback captureTime)";
        } else {
          note.textContent = recent.length ? Math.round(100 * sorted.length / recent.length) + "% of frames with a capture time" : "";
        }
        figures.textContent = sorted.length ? "median " + Math.round(state.p50Ms) + " ms, p95 " + Math.round(state.p95Ms) + " ms (last 5 s)" : "no figures yet";
        if (!receiver) return;
        const report = await receiver.getStats();
        report.forEach((s) => {
          if (s.type !== "inbound-rtp") return;
          state.freezeCount = s.freezeCount === undefined ? null : s.freezeCount;
          state.totalFreezesDuration = s.totalFreezesDuration === undefined ? null : s.totalFreezesDuration;
          state.jitterBufferDelayMs = s.jitterBufferEmittedCount ? 1000 * s.jitterBufferDelay / s.jitterBufferEmittedCount : null;
        });
        document.getElementById("l-freezes").textContent = state.freezeCount === null ? "" : "freezes: " + state.freezeCount;
        // abs-capture-time as the browser read it: NTP milliseconds on the sender's clock, and
        // when that packet arrived (Unix milliseconds).
        const source = receiver.getSynchronizationSources()[0];
        state.senderCaptureTime = source && typeof source.captureTimestamp === "number"
          ? { ntpMs: source.captureTimestamp, offsetMs: source.senderCaptureTimeOffset, receivedUnixMs: source.timestamp } : null;
      }
      setInterval(update, 1000);

      // The floor the jitter buffer holds frames for: smoothTargetMs, or none.
      function apply() {
        if (!receiver) return;
        const targetMs = state.mode === "smooth" ? smoothTargetMs : 0;
        if ("jitterBufferTarget" in receiver) receiver.jitterBufferTarget = targetMs;
        else if ("playoutDelayHint" in receiver) receiver.playoutDelayHint = targetMs / 1000;
      }
      select.onchange = () => { state.mode = select.value; apply(); };

      return {
        // A new connection's transceiver, before its offer: abs-capture-time on, the mode applied.
        prepare(transceiver) {
          receiver = transceiver.receiver;
          recent = []; state.framesShown = 0; state.framesWithCaptureTime = 0;
          if (transceiver.setHeaderExtensionsToNegotiate) {
            try {
              transceiver.setHeaderExtensionsToNegotiate(transceiver.getHeaderExtensionsToNegotiate().map((extension) =>
                extension.uri === "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time" ? { ...extension, direction: "recvonly" } : extension));
            } catch (error) {}
          }
          apply();
        },
      };
    })();
    """
}
