#!/usr/bin/python3
"""Headless Firefox ESR playing camrtp's viewer page, driven over WebDriver BiDi on Firefox's own
--remote-debugging-port (no geckodriver): it opens the page, reads `window.camrtpViewer` (the
page's getStats figures) until enough frames are decoded and painted, takes a screenshot and
presses Disconnect (the page's DELETE).

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC, as
chromium_viewer.py does:
  {"event": "stats", "viewer": {...}, "painted": N}   the page's state and figures, when they change
  {"event": "screenshot", "path": "...", "bytes": N}
  {"event": "stopped", "state": "..."}
  {"event": "error", "message": "..."}

The session accepts the test's self-signed certificate (acceptInsecureCerts). Firefox gathers
host candidates only on an address outside 127/8 with a default route, so the test gives the
namespace one; the prefs keep host candidates unobfuscated (no mDNS names) and skip first-run pages.
"""
import argparse
import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

import aiohttp

from aiortc_peer import emit
from browser_rpc import BrowserRPC, stop_browser

PREFS = {
    "media.peerconnection.ice.obfuscate_host_addresses": False,
    "media.autoplay.default": 0,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
}

STATE = ("JSON.stringify(window.camrtpViewer ? {state: camrtpViewer.state, error: camrtpViewer.error, "
         "resource: camrtpViewer.resource, stats: camrtpViewer.stats, latency: camrtpViewer.latency, "
         "latencyNote: document.getElementById('l-note').textContent, "
         "painted: document.getElementById('video').mozPaintedFrames} : null)")


class BiDi(BrowserRPC):
    def error(self, message):
        return f"{message.get('error')}: {message.get('message')}" if message.get("type") == "error" else None

    async def evaluate(self, context, expression):
        result = await self.call("script.evaluate", expression=expression, target={"context": context}, awaitPromise=True)
        if result.get("type") != "success":
            raise RuntimeError(f"script.evaluate: {result.get('exceptionDetails')}")
        return result["result"].get("value")


async def session_socket(http, port):
    # Firefox takes a moment to open its remote agent: ask until it answers.
    for _ in range(1200):
        try:
            return await http.ws_connect(f"ws://127.0.0.1:{port}/session", max_msg_size=64 << 20)
        except aiohttp.ClientError:
            await asyncio.sleep(0.1)
    raise RuntimeError("Firefox's remote agent never answered")


async def drive(arguments):
    profile = tempfile.mkdtemp(prefix="camrtp-firefox-")
    with open(os.path.join(profile, "user.js"), "w") as prefs:
        for name, value in PREFS.items():
            prefs.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
    browser = subprocess.Popen([
        "firefox-esr", "--headless", "--no-remote", "--profile", profile, f"--remote-debugging-port={arguments.debug_port}",
        "--window-size=1000,900",
    ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async with aiohttp.ClientSession() as http:
            socket = await session_socket(http, arguments.debug_port)
            try:
                bidi = BiDi(socket)
                await bidi.call("session.new", capabilities={"alwaysMatch": {"acceptInsecureCerts": True}})
                context = (await bidi.call("browsingContext.getTree"))["contexts"][0]["context"]
                await bidi.call("browsingContext.navigate", context=context, url=arguments.url, wait="complete")
                last = None
                deadline = time.monotonic() + arguments.timeout
                while time.monotonic() < deadline:
                    viewer = await bidi.evaluate(context, STATE)
                    viewer = json.loads(viewer) if viewer else None
                    if viewer != last:
                        emit("stats", viewer=viewer)
                        last = viewer
                    stats = (viewer or {}).get("stats") or {}
                    if viewer and viewer.get("error"):
                        return 1
                    if stats.get("framesDecoded", 0) >= arguments.frames and (viewer.get("painted") or 0) >= arguments.frames:
                        break
                    await asyncio.sleep(0.25)
                else:
                    emit("error", message="not enough frames decoded in time")
                    return 1
                shot = await bidi.call("browsingContext.captureScreenshot", context=context)
                data = base64.b64decode(shot["data"])
                with open(arguments.screenshot, "wb") as file:
                    file.write(data)
                emit("screenshot", path=arguments.screenshot, bytes=len(data))
                await bidi.evaluate(context, "stop().then(() => camrtpViewer.state)")
                emit("stopped", state=await bidi.evaluate(context, "camrtpViewer.state"))
                await bidi.call("session.end")
                return 0
            finally:
                await socket.close()
    finally:
        stop_browser(browser)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--debug-port", type=int, default=9334)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--timeout", type=float, default=90)
    sys.exit(asyncio.run(drive(parser.parse_args())))


if __name__ == "__main__":
    main()
