/// The viewer page `GET /` serves: plain HTML and JavaScript compiled into the binary, no CDN and
/// no build step, so it works offline. It plays the stream over WHEP (a recvonly
/// `RTCPeerConnection` with the STUN and TURN servers the endpoint's OPTIONS offers in `Link`
/// fields, the offer POSTed once ICE gathering is complete), charts bitrate, RTT, loss and
/// frames from `getStats()` once a second on canvases, and asks for a keyframe with
/// `POST <session>/keyframe`: a page has no API to send a PLI.
///
/// When its connection fails (or stays disconnected for 3 s) it restarts ICE with a PATCH
/// (RFC 9725 section 4.3.2); if that does not connect within 5 s, or a connected session
/// decodes nothing for 6 s, it ends the session and POSTs a new one after 1, 2, 4 ... up to
/// 30 s, jittered, and says so in its state line.
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
    const viewer = window.camrtpViewer = {
      state: "starting", resource: null, stats: null, history: [], error: null, keyframeRequests: 0,
      iceServers: [], iceRestarts: 0, reconnections: 0, restartIce: () => recover("asked for", true),
    };
    const $ = (id) => document.getElementById(id);
    const series = { bitrate: [], rtt: [], loss: [], fps: [] };
    const units = { bitrate: "kbit/s", rtt: "ms", loss: "%", fps: "fps" };
    let pc = null, timer = null, previous = null;
    let etag = null, recovering = false, lostTimer = null, reconnectTimer = null, attempt = 0, decodedAt = 0;

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

    async function start(reconnecting) {
      await stop(reconnecting);
      $("error").textContent = ""; viewer.error = null; previous = null;
      for (const key in series) series[key].length = 0;
      viewer.history = [];
      setState(reconnecting ? "reconnecting" : "connecting");
      viewer.iceServers = await offeredIceServers();
      const current = pc = new RTCPeerConnection({ iceServers: viewer.iceServers });
      latency.prepare(pc.addTransceiver("video", { direction: "recvonly" }));
      pc.ontrack = (event) => { $("video").srcObject = event.streams[0] || new MediaStream([event.track]); };
      pc.onconnectionstatechange = () => { if (pc === current) connectionChanged(current.connectionState); };
      try {
        await pc.setLocalDescription(await pc.createOffer());
        await gatheringComplete(pc);
        const headers = { "Content-Type": "application/sdp" };
        if (token()) headers["Authorization"] = "Bearer " + token();
        const response = await fetch(endpoint, { method: "POST", headers, body: pc.localDescription.sdp });
        const text = await response.text();
        if (response.status !== 201) {
          const message = response.status === 401
            ? "this server needs a token: enter it above and press Reconnect (" + text.trim() + ")"
            : "WHEP " + response.status + ": " + text.trim();
          throw Object.assign(new Error(message), { status: response.status });
        }
        viewer.resource = new URL(response.headers.get("Location"), endpoint).href;
        etag = response.headers.get("ETag");
        await pc.setRemoteDescription({ type: "answer", sdp: text });
        $("keyframe").disabled = false; $("stop").disabled = false;
        timer = setInterval(sample, 1000);
      } catch (error) {
        // The server down, full or failing: try again later; a request it refuses for good: stop.
        if (!error.status || error.status >= 500 || error.status === 429) reconnect(error.message || String(error));
        else fail(error.message || error);
      }
    }

    // RFC 9725 section 4.6: the endpoint's STUN and TURN servers, from Link fields on OPTIONS.
    async function offeredIceServers() {
      try {
        const response = await fetch(endpoint, { method: "OPTIONS" });
        return iceServersOf(response.headers.get("Link") || "");
      } catch (error) {
        return [];
      }
    }

    // RFC 8288 link-values (a browser joins several Link fields with commas): the ice-server ones.
    function iceServersOf(value) {
      const servers = [], n = value.length, blank = (c) => c === " " || c === "\\t";
      let i = 0;
      const skip = () => { while (i < n && blank(value[i])) i++; };
      while (i < n) {
        skip();
        if (value[i] === ",") { i++; continue; }
        const end = value.indexOf(">", i);
        if (value[i] !== "<" || end < 0) break;
        const url = value.slice(i + 1, end), params = {};
        i = end + 1;
        for (;;) {
          skip();
          if (value[i] !== ";") break;
          i++; skip();
          let name = "", text = "";
          while (i < n && !blank(value[i]) && !";,=".includes(value[i])) name += value[i++];
          skip();
          if (value[i] === "=") {
            i++; skip();
            if (value[i] === '"') {
              for (i++; i < n && value[i] !== '"'; i++) { if (value[i] === "\\\\") i++; text += value[i]; }
              i++;
            } else {
              while (i < n && !blank(value[i]) && !";,".includes(value[i])) text += value[i++];
            }
          }
          name = name.toLowerCase();
          if (!(name in params)) params[name] = text;
        }
        if ((params.rel || "").toLowerCase().split(/\\s+/).includes("ice-server")) {
          servers.push(params.username !== undefined ? { urls: url, username: params.username, credential: params.credential } : { urls: url });
        }
      }
      return servers;
    }

    function connectionChanged(state) {
      setState(state);
      clearTimeout(lostTimer);
      if (state === "connected") attempt = 0;
      if (state === "failed") recover("the connection failed");
      if (state === "disconnected") lostTimer = setTimeout(() => recover("the connection was lost"), 3000);
    }

    // ICE restart first (a PATCH with new credentials, RFC 9725 section 4.3.2), then a new session.
    async function recover(cause, asked) {
      if (recovering || !pc || !viewer.resource) return false;
      recovering = true;
      setState("restarting ICE: " + cause);
      try {
        pc.restartIce();
        await pc.setLocalDescription(await pc.createOffer());
        await gatheringComplete(pc);
        const response = await fetch(viewer.resource, {
          method: "PATCH", headers: { "Content-Type": "application/trickle-ice-sdpfrag", "If-Match": "*" }, body: iceFragment(pc.localDescription.sdp),
        });
        const text = await response.text();
        if (response.status !== 200) throw new Error("ICE restart: " + response.status + " " + text.trim());
        etag = response.headers.get("ETag");
        await pc.setRemoteDescription({ type: "answer", sdp: withIceFragment(pc.remoteDescription.sdp, text) });
        await connected(pc, 5000);
        viewer.iceRestarts += 1;
        setState(pc.connectionState);
        return true;
      } catch (error) {
        if (!asked) reconnect(cause);
        return false;
      } finally {
        recovering = false;
      }
    }

    function reconnect(cause) {
      clearTimeout(reconnectTimer); clearTimeout(lostTimer);
      clearInterval(timer); timer = null;
      attempt += 1;
      viewer.reconnections += 1;
      const seconds = Math.min(30, Math.max(1, Math.min(30, 2 ** (attempt - 1)) * (0.8 + 0.4 * Math.random())));
      setState("reconnecting in " + seconds.toFixed(1) + " s (attempt " + attempt + "): " + cause);
      reconnectTimer = setTimeout(() => start(true), seconds * 1000);
    }

    function connected(pc, ms) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pc.connectionState === "connected") { pc.removeEventListener("connectionstatechange", check); resolve(); }
        };
        pc.addEventListener("connectionstatechange", check);
        check();
        setTimeout(() => reject(new Error("not connected after " + ms / 1000 + " s")), ms);
      });
    }

    // The ICE lines of our offer's first section: what an application/trickle-ice-sdpfrag carries.
    function iceFragment(sdp) {
      const lines = [];
      let sections = 0;
      for (const line of sdp.split(/\\r?\\n/)) {
        if (line.startsWith("m=")) { if (++sections > 1) break; lines.push(line); continue; }
        if (line.startsWith("a=ice-ufrag:") || line.startsWith("a=ice-pwd:") || line.startsWith("a=ice-options:")
            || (sections === 1 && (line.startsWith("a=mid:") || line.startsWith("a=candidate:") || line === "a=end-of-candidates"))) lines.push(line);
      }
      return lines.join("\\r\\n") + "\\r\\n";
    }

    // The session's answer with the credentials and candidates of its restart's fragment.
    function withIceFragment(sdp, fragment) {
      const lines = fragment.split(/\\r?\\n/);
      const ufrag = lines.find((l) => l.startsWith("a=ice-ufrag:")), pwd = lines.find((l) => l.startsWith("a=ice-pwd:"));
      const candidates = lines.filter((l) => l.startsWith("a=candidate:") || l === "a=end-of-candidates");
      const kept = sdp.split(/\\r?\\n/).filter((l) => l && !l.startsWith("a=candidate:") && l !== "a=end-of-candidates")
        .map((l) => l.startsWith("a=ice-ufrag:") ? ufrag || l : l.startsWith("a=ice-pwd:") ? pwd || l : l);
      return kept.concat(candidates).join("\\r\\n") + "\\r\\n";
    }

    async function stop(reconnecting) {
      clearTimeout(lostTimer);
      if (!reconnecting) { clearTimeout(reconnectTimer); attempt = 0; }
      clearInterval(timer); timer = null;
      const resource = viewer.resource;
      viewer.resource = null;
      $("keyframe").disabled = true; $("stop").disabled = true;
      if (pc) { pc.close(); pc = null; if (!reconnecting) setState("closed"); }
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
      const candidateTypes = {};
      report.forEach((s) => {
        if (s.type === "inbound-rtp" && s.kind === "video") inbound = s;
        if (s.type === "transport") transport = s;
        if (s.type === "local-candidate" || s.type === "remote-candidate") candidateTypes[s.id] = s.candidateType;
      });
      report.forEach((s) => {
        if (s.type === "candidate-pair" && ((transport && s.id === transport.selectedCandidatePairId) || (!pair && s.nominated && s.state === "succeeded"))) pair = s;
      });
      if (!inbound) return;
      // A session that is connected but shows nothing is as good as lost.
      if (previous && inbound.framesDecoded > previous.frames) decodedAt = inbound.timestamp;
      if (!previous) decodedAt = inbound.timestamp;
      if (pc.connectionState === "connected" && !recovering && inbound.timestamp - decodedAt > 6000) {
        reconnect("no frames for 6 s");
        return;
      }
      const now = { t: inbound.timestamp, bytes: inbound.bytesReceived || 0, frames: inbound.framesDecoded || 0, lost: inbound.packetsLost || 0, received: inbound.packetsReceived || 0 };
      const figures = {
        framesDecoded: now.frames, frameWidth: inbound.frameWidth || 0, frameHeight: inbound.frameHeight || 0,
        packetsLost: now.lost, packetsReceived: now.received, nackCount: inbound.nackCount || 0, pliCount: inbound.pliCount || 0,
        keyFramesDecoded: inbound.keyFramesDecoded || 0, framesReceived: inbound.framesReceived || 0, framesDropped: inbound.framesDropped || 0,
        framesPerSecond: inbound.framesPerSecond || 0, freezeCount: inbound.freezeCount || 0, totalFreezesDuration: inbound.totalFreezesDuration || 0,
        rttMs: pair && pair.currentRoundTripTime !== undefined ? pair.currentRoundTripTime * 1000 : null,
        localCandidateType: pair ? candidateTypes[pair.localCandidateId] || null : null,
        remoteCandidateType: pair ? candidateTypes[pair.remoteCandidateId] || null : null,
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
    $("stop").onclick = () => stop();
    $("start").onclick = () => start();
    $("token").hidden = new URLSearchParams(location.hash.slice(1)).has("token");
    window.addEventListener("pagehide", () => { if (viewer.resource) fetch(viewer.resource, { method: "DELETE", keepalive: true }); });
    start();
    </script>
    </body>
    </html>
    """
}
