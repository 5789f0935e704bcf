/// The viewer page `GET /` serves: plain HTML and JavaScript compiled into the binary, no CDN and
/// no build step, so it works offline. It plays the stream over WHEP (a recvonly
/// `RTCPeerConnection`, the offer POSTed once ICE gathering is complete since the endpoint takes no
/// trickle), charts bitrate, RTT, loss and frames from `getStats()` once a second on canvases,
/// and asks for a keyframe with `POST <session>/keyframe`: a page has no API to send a PLI.
///
/// The latency panel (`ViewerPageLatency`) shows glass-to-glass latency and switches the
/// playout between lowest latency and smooth. `?whep=URL` points it at another endpoint (CORS is
/// open), `?latency=smooth` starts it smooth. A server that wants a bearer token
/// gets the one in the URL's fragment (`#token=...`, which browsers never send to a server) or
/// in the page's token field, as `Authorization: Bearer` on the offer. `window.camrtpViewer`
/// holds the state, the latest figures and their history, for tests that drive the page.
public enum ViewerPage {
    public static let html = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>camrtp viewer</title>
    <style>
    body { font: 14px system-ui, sans-serif; margin: 0; background: #111; color: #ddd; }
    header { display: flex; gap: 12px; align-items: center; padding: 8px 12px; background: #222; }
    header h1 { font-size: 16px; margin: 0 8px 0 0; }
    button { font: inherit; padding: 4px 10px; }
    #state { font-weight: bold; }
    main { display: flex; flex-wrap: wrap; gap: 12px; padding: 12px; }
    video { background: #000; width: 640px; max-width: 100%; aspect-ratio: 16 / 9; }
    #charts { display: grid; grid-template-columns: repeat(2, 300px); gap: 8px; }
    figure { margin: 0; background: #1b1b1b; padding: 4px; }
    figcaption { font-size: 12px; display: flex; justify-content: space-between; }
    canvas { display: block; width: 292px; height: 90px; }
    #error { color: #f77; padding: 0 12px; white-space: pre-wrap; }
    \(ViewerPageLatency.style)
    </style>
    </head>
    <body>
    <header>
      <h1>camrtp</h1>
      <span>state: <span id="state">starting</span></span>
      <span id="size"></span>
      <button id="keyframe" disabled>Keyframe</button>
      <button id="stop" disabled>Disconnect</button>
      <button id="start">Reconnect</button>
      <input id="token" type="password" placeholder="token" autocomplete="off" aria-label="token">
    </header>
    \(ViewerPageLatency.markup)
    <div id="error"></div>
    <main>
      <video id="video" autoplay muted playsinline></video>
      <div id="charts">
        <figure><figcaption><span>bitrate</span><span id="v-bitrate"></span></figcaption><canvas id="c-bitrate" width="292" height="90"></canvas></figure>
        <figure><figcaption><span>RTT</span><span id="v-rtt"></span></figcaption><canvas id="c-rtt" width="292" height="90"></canvas></figure>
        <figure><figcaption><span>loss</span><span id="v-loss"></span></figcaption><canvas id="c-loss" width="292" height="90"></canvas></figure>
        <figure><figcaption><span>frames decoded</span><span id="v-fps"></span></figcaption><canvas id="c-fps" width="292" height="90"></canvas></figure>
      </div>
    </main>
    <script>
    "use strict";
    const params = new URLSearchParams(location.search);
    const endpoint = new URL(params.get("whep") || "whep", location.href).href;
    const viewer = window.camrtpViewer = { state: "starting", resource: null, stats: null, history: [], error: null, keyframeRequests: 0 };
    const $ = (id) => document.getElementById(id);
    const series = { bitrate: [], rtt: [], loss: [], fps: [] };
    const units = { bitrate: "kbit/s", rtt: "ms", loss: "%", fps: "fps" };
    let pc = null, timer = null, previous = null;

    function token() {
      return new URLSearchParams(location.hash.slice(1)).get("token") || $("token").value.trim() || null;
    }

    function setState(state) { viewer.state = state; $("state").textContent = state; }
    function fail(message) { viewer.error = String(message); $("error").textContent = viewer.error; setState("failed"); }

    function gatheringComplete(pc) {
      if (pc.iceGatheringState === "complete") return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => { if (pc.iceGatheringState === "complete") { pc.removeEventListener("icegatheringstatechange", done); resolve(); } };
        pc.addEventListener("icegatheringstatechange", done);
        setTimeout(resolve, 3000);
      });
    }

    async function start() {
      await stop();
      $("error").textContent = ""; viewer.error = null; previous = null;
      for (const key in series) series[key].length = 0;
      viewer.history = [];
      setState("connecting");
      pc = new RTCPeerConnection();
      latency.prepare(pc.addTransceiver("video", { direction: "recvonly" }));
      pc.ontrack = (event) => { $("video").srcObject = event.streams[0] || new MediaStream([event.track]); };
      pc.onconnectionstatechange = () => { if (pc) setState(pc.connectionState); };
      try {
        await pc.setLocalDescription(await pc.createOffer());
        await gatheringComplete(pc);
        const headers = { "Content-Type": "application/sdp" };
        if (token()) headers["Authorization"] = "Bearer " + token();
        const response = await fetch(endpoint, { method: "POST", headers, body: pc.localDescription.sdp });
        const text = await response.text();
        if (response.status === 401) throw new Error("this server needs a token: enter it above and press Reconnect (" + text.trim() + ")");
        if (response.status !== 201) throw new Error("WHEP " + response.status + ": " + text.trim());
        viewer.resource = new URL(response.headers.get("Location"), endpoint).href;
        await pc.setRemoteDescription({ type: "answer", sdp: text });
        $("keyframe").disabled = false; $("stop").disabled = false;
        timer = setInterval(sample, 1000);
      } catch (error) {
        fail(error.message || error);
      }
    }

    async function stop() {
      clearInterval(timer); timer = null;
      const resource = viewer.resource;
      viewer.resource = null;
      $("keyframe").disabled = true; $("stop").disabled = true;
      if (pc) { pc.close(); pc = null; setState("closed"); }
      if (resource) { try { await fetch(resource, { method: "DELETE", keepalive: true }); } catch (error) {} }
    }

    async function keyframe() {
      if (!viewer.resource) return;
      const response = await fetch(viewer.resource + "/keyframe", { method: "POST" });
      if (response.ok) viewer.keyframeRequests += 1; else fail("keyframe: " + response.status);
    }

    async function sample() {
      if (!pc) return;
      const report = await pc.getStats();
      let inbound = null, pair = null, transport = null;
      report.forEach((s) => {
        if (s.type === "inbound-rtp" && s.kind === "video") inbound = s;
        if (s.type === "transport") transport = s;
      });
      report.forEach((s) => {
        if (s.type === "candidate-pair" && ((transport && s.id === transport.selectedCandidatePairId) || (!pair && s.nominated && s.state === "succeeded"))) pair = s;
      });
      if (!inbound) return;
      const now = { t: inbound.timestamp, bytes: inbound.bytesReceived || 0, frames: inbound.framesDecoded || 0, lost: inbound.packetsLost || 0, received: inbound.packetsReceived || 0 };
      const figures = {
        framesDecoded: now.frames, frameWidth: inbound.frameWidth || 0, frameHeight: inbound.frameHeight || 0,
        packetsLost: now.lost, packetsReceived: now.received, nackCount: inbound.nackCount || 0, pliCount: inbound.pliCount || 0,
        keyFramesDecoded: inbound.keyFramesDecoded || 0,
        rttMs: pair && pair.currentRoundTripTime !== undefined ? pair.currentRoundTripTime * 1000 : null,
        bitrateKbps: null, fps: null, lossPercent: null,
      };
      if (previous) {
        const seconds = (now.t - previous.t) / 1000;
        if (seconds > 0) {
          figures.bitrateKbps = (now.bytes - previous.bytes) * 8 / 1000 / seconds;
          figures.fps = (now.frames - previous.frames) / seconds;
          const lost = now.lost - previous.lost, got = now.received - previous.received;
          figures.lossPercent = lost + got > 0 ? 100 * Math.max(0, lost) / (lost + got) : 0;
        }
      }
      previous = now;
      viewer.stats = figures;
      viewer.history.push(figures);
      if (viewer.history.length > 300) viewer.history.shift();
      $("size").textContent = figures.frameWidth ? figures.frameWidth + "\\u00d7" + figures.frameHeight : "";
      plot("bitrate", figures.bitrateKbps);
      plot("rtt", figures.rttMs);
      plot("loss", figures.lossPercent);
      plot("fps", figures.fps);
    }

    function plot(name, value) {
      const points = series[name];
      if (value !== null && value !== undefined && isFinite(value)) points.push(value);
      if (points.length > 60) points.shift();
      const last = points.length ? points[points.length - 1] : null;
      $("v-" + name).textContent = last === null ? "" : (last < 10 ? last.toFixed(1) : Math.round(last)) + " " + units[name];
      const canvas = $("c-" + name), g = canvas.getContext("2d");
      g.clearRect(0, 0, canvas.width, canvas.height);
      g.strokeStyle = "#333"; g.beginPath(); g.moveTo(0, canvas.height - 0.5); g.lineTo(canvas.width, canvas.height - 0.5); g.stroke();
      if (points.length < 2) return;
      const top = Math.max(1, ...points) * 1.15;
      g.strokeStyle = "#4cf"; g.lineWidth = 1.5; g.beginPath();
      points.forEach((v, i) => {
        const x = (i / 59) * (canvas.width - 1), y = canvas.height - 1 - (v / top) * (canvas.height - 2);
        if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
      });
      g.stroke();
      g.fillStyle = "#888"; g.font = "10px sans-serif"; g.fillText(String(Math.round(top)), 2, 10);
    }

    \(ViewerPageLatency.script)
    $("keyframe").onclick = keyframe;
    $("stop").onclick = stop;
    $("start").onclick = start;
    $("token").hidden = new URLSearchParams(location.hash.slice(1)).has("token");
    window.addEventListener("pagehide", () => { if (viewer.resource) fetch(viewer.resource, { method: "DELETE", keepalive: true }); });
    start();
    </script>
    </body>
    </html>
    """
}
