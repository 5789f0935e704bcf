#!/usr/bin/python3
"""Headless Chromium playing camrtp's viewer page, driven over the DevTools protocol (aiohttp's
websocket client): it opens the page, reads `window.camrtpViewer` (the page's getStats figures
and its latency panel's) until enough frames are decoded with an RTT measured (and NACKs sent,
with --min-nacks; frames displayed with a capture time, with --capture-times), presses the page's
Keyframe button, takes a screenshot and presses Disconnect (the page's DELETE).

With --restart-ice it first has the page restart ICE (its PATCH) and waits for 30 more frames;
with --wait-recovery it prints "playing", then waits for the page to recover on its own (an ICE
restart or a new session, after the test broke the path) and to decode 30 frames again.

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC:
  {"event": "stats", "viewer": {...}}          the page's state and latest figures, when they change
  {"event": "inbound", "report": {...}}        Chromium's own inbound-rtp figures once it plays
  {"event": "keyframe", "requests": N}         the button's POST was answered
  {"event": "screenshot", "path": "...", "bytes": N}
  {"event": "stopped", "state": "..."}         after Disconnect
  {"event": "playing"}, {"event": "restarted"|"recovered", "viewer": {...}}   with the options above
  {"event": "error", "message": "..."}

Chromium excludes loopback addresses from WebRTC without --allow-loopback-in-peer-connection.
--trust-certificate PEM makes it accept that certificate (by its public key's hash) for HTTPS.
"""
import argparse
import asyncio
import base64
import hashlib
import json
import subprocess
import sys
import tempfile
import time

import aiohttp

from browser_rpc import BrowserRPC, stop_browser


def spki_hash(certificate):
    """base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo, as
    --ignore-certificate-errors-spki-list takes it."""
    public_key = subprocess.run(["openssl", "x509", "-in", certificate, "-pubkey", "-noout"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public_key, check=True, capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def emit(event, **fields):
    sys.stdout.write(json.dumps({"event": event, "t": time.monotonic(), **fields}) + "\n")
    sys.stdout.flush()


class DevTools(BrowserRPC):
    def error(self, message):
        return message.get("error")

    async def evaluate(self, expression):
        result = await self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        return result["result"].get("value")


async def page_socket(http, port):
    # Chromium takes a moment to open its DevTools port: ask until it answers.
    for _ in range(600):
        try:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as response:
                pages = [target for target in await response.json() if target["type"] == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("Chromium's DevTools port never answered")


async def drive(arguments):
    profile = tempfile.mkdtemp(prefix="camrtp-chromium-")
    trust = [f"--ignore-certificate-errors-spki-list={spki_hash(arguments.trust_certificate)}"] if arguments.trust_certificate else []
    browser = subprocess.Popen([
        "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
        "--allow-loopback-in-peer-connection", f"--remote-debugging-port={arguments.debug_port}",
        f"--user-data-dir={profile}", "--window-size=1000,900", "--no-first-run", *trust, arguments.url,
    ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(await page_socket(http, arguments.debug_port), max_msg_size=64 << 20) as socket:
                tools = DevTools(socket)
                last = None
                deadline = time.monotonic() + arguments.timeout
                while time.monotonic() < deadline:
                    viewer = await read_viewer(tools)
                    if viewer != last:
                        emit("stats", viewer=viewer)
                        last = viewer
                    stats = (viewer or {}).get("stats") or {}
                    if viewer and viewer.get("error"):
                        return 1
                    latency = (viewer or {}).get("latency") or {}
                    if (stats.get("framesDecoded", 0) >= arguments.frames and stats.get("rttMs") is not None
                            and stats.get("nackCount", 0) >= arguments.min_nacks
                            and latency.get("framesWithCaptureTime", 0) >= arguments.capture_times):
                        break
                    await asyncio.sleep(0.25)
                else:
                    emit("error", message="not enough frames decoded in time")
                    return 1
                emit("inbound", report=await inbound_rtp(tools))
                if arguments.restart_ice:
                    if not await tools.evaluate("camrtpViewer.restartIce()"):
                        emit("error", message="the page's ICE restart failed", viewer=await read_viewer(tools))
                        return 1
                    if not await frames_again(tools, deadline):
                        return 1
                    emit("restarted", viewer=await read_viewer(tools))
                if arguments.wait_recovery:
                    emit("playing")
                    if not await recovered(tools, time.monotonic() + arguments.timeout):
                        return 1
                    emit("recovered", viewer=await read_viewer(tools))
                await tools.evaluate("keyframe().then(() => camrtpViewer.keyframeRequests)")
                emit("keyframe", requests=await tools.evaluate("camrtpViewer.keyframeRequests"))
                # Let the charts fill a little more, then keep the picture.
                await asyncio.sleep(1.5)
                if arguments.screenshot:
                    shot = await tools.call("Page.captureScreenshot", format="png")
                    data = base64.b64decode(shot["data"])
                    with open(arguments.screenshot, "wb") as file:
                        file.write(data)
                    emit("screenshot", path=arguments.screenshot, bytes=len(data))
                await tools.evaluate("stop().then(() => camrtpViewer.state)")
                emit("stopped", state=await tools.evaluate("camrtpViewer.state"))
                return 0
    finally:
        stop_browser(browser)


async def read_viewer(tools):
    text = await tools.evaluate(
        "JSON.stringify(window.camrtpViewer ? {state: camrtpViewer.state, error: camrtpViewer.error, resource: camrtpViewer.resource,"
        " stats: camrtpViewer.stats, keyframeRequests: camrtpViewer.keyframeRequests, iceServers: camrtpViewer.iceServers.length,"
        " iceRestarts: camrtpViewer.iceRestarts, reconnections: camrtpViewer.reconnections, latency: camrtpViewer.latency} : null)")
    return json.loads(text) if text else None


async def inbound_rtp(tools):
    """Chromium's inbound-rtp statistics of the video, all of them (freezeCount,
    totalFreezesDuration, framesDropped, jitterBufferDelay, ...), from the page's
    RTCPeerConnection (`pc`, a global of its script)."""
    text = await tools.evaluate(
        "(async () => { let found = null; if (pc) (await pc.getStats()).forEach((s) => {"
        " if (s.type === 'inbound-rtp' && s.kind === 'video') found = s; }); return JSON.stringify(found); })()")
    return json.loads(text) if text else None


async def frames_again(tools, deadline, more=30):
    """Waits until the page is connected and has decoded `more` frames since now (its counter
    starts over when it reconnects)."""
    start = None
    while time.monotonic() < deadline:
        viewer = await read_viewer(tools) or {}
        decoded = (viewer.get("stats") or {}).get("framesDecoded", 0)
        start = decoded if start is None else min(start, decoded)
        if viewer.get("state") == "connected" and decoded - start >= more:
            return True
        await asyncio.sleep(0.25)
    emit("error", message="no frames after the recovery", viewer=await read_viewer(tools))
    return False


async def recovered(tools, deadline):
    """Waits for an ICE restart or a new session, then for frames again; reports states seen."""
    seen = set()
    while time.monotonic() < deadline:
        viewer = await read_viewer(tools) or {}
        if viewer.get("state") not in seen:
            seen.add(viewer.get("state"))
            emit("state", state=viewer.get("state"))
        if viewer.get("iceRestarts", 0) + viewer.get("reconnections", 0) > 0:
            return await frames_again(tools, deadline)
        await asyncio.sleep(0.25)
    emit("error", message="the page did not recover", viewer=await read_viewer(tools))
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--debug-port", type=int, default=9333)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--screenshot")
    parser.add_argument("--restart-ice", action="store_true", help="have the page restart ICE once it plays")
    parser.add_argument("--wait-recovery", action="store_true", help="print playing, then wait for the page to recover")
    parser.add_argument("--min-nacks", type=int, default=0, help="also wait until the page has sent this many NACKs")
    parser.add_argument("--capture-times", type=int, default=0,
                        help="also wait until the page has displayed this many frames with a capture time")
    parser.add_argument("--timeout", type=float, default=90)
    parser.add_argument("--trust-certificate", help="accept this certificate (PEM) for HTTPS")
    sys.exit(asyncio.run(drive(parser.parse_args())))


if __name__ == "__main__":
    main()
