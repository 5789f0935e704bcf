#!/usr/bin/python3
"""Headless Chromium publishing its fake camera with VP8 simulcast to a WHIP endpoint: a
publisher we did not write, to prove a WHIP endpoint and an SFU's subscribers against.

It serves itself a blank page on --host (a loopback origin is a secure context, which
getUserMedia needs), and over the DevTools protocol has the page take the fake camera at
--size, add a send-only transceiver with three encodings (--rids, lowest first: a quarter, a
half and the full size, each with scalabilityMode --scalability; the offer lists them highest
first with --offer-order hml, as janus.js does and Janus expects by default, or lowest first with
lmh), gather every candidate and create the offer. This
script POSTs the offer to --whip (so the page needs no CORS), gives the page the answer, reports
what Chromium sends and on SIGINT or SIGTERM DELETEs the session and exits.

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC:
  {"event": "offer", "sdp": "..."}
  {"event": "answer", "location": "...", "sdp": "..."}
  {"event": "encodings", "encodings": [...]}   the sender's parameters as Chromium kept them
  {"event": "outbound", "streams": [{"rid", "frameWidth", "frameHeight", "framesPerSecond",
        "framesEncoded", "scalabilityMode", "qualityLimitationReason", ...}, ...]}   every
        couple of seconds, when it changes
  {"event": "stopped"} or {"event": "error", "message": "..."} and exit 1

Chromium excludes loopback addresses from WebRTC without --allow-loopback-in-peer-connection.
"""
import argparse
import asyncio
import json
import signal
import subprocess
import sys
import tempfile

import aiohttp
from aiohttp import web
from yarl import URL

from aiortc_peer import emit
from browser_rpc import stop_browser
from chromium_viewer import DevTools, page_socket

PAGE = """<!doctype html><title>simulcast publisher</title><script>
window.publish = async (width, height, encodings) => {
  const stream = await navigator.mediaDevices.getUserMedia({video: {width, height, frameRate: 30}});
  window.pc = new RTCPeerConnection();
  const sender = pc.addTransceiver(stream.getVideoTracks()[0], {direction: 'sendonly', sendEncodings: encodings}).sender;
  const parameters = sender.getParameters();
  parameters.degradationPreference = 'maintain-resolution';
  await sender.setParameters(parameters);
  await pc.setLocalDescription();
  if (pc.iceGatheringState !== 'complete')
    await new Promise((resolve) => pc.addEventListener('icegatheringstatechange',
      () => pc.iceGatheringState === 'complete' && resolve()));
  return pc.localDescription.sdp;
};
window.outbound = async () => {
  const streams = [];
  (await pc.getStats()).forEach((s) => { if (s.type === 'outbound-rtp' && s.kind === 'video') streams.push(s); });
  return JSON.stringify(streams);
};
</script>"""

STAT_FIELDS = ["rid", "ssrc", "frameWidth", "frameHeight", "framesPerSecond", "framesEncoded", "framesSent",
               "scalabilityMode", "qualityLimitationReason", "targetBitrate", "bytesSent", "active"]


async def publish(arguments):
    app = web.Application()
    app.router.add_get("/", lambda _: web.Response(text=PAGE, content_type="text/html"))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, arguments.host, 0)
    await site.start()
    page = f"http://{arguments.host}:{site._server.sockets[0].getsockname()[1]}/"
    profile = tempfile.mkdtemp(prefix="camrtp-chromium-")
    browser = subprocess.Popen([
        "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream", "--allow-loopback-in-peer-connection",
        f"--remote-debugging-port={arguments.debug_port}", f"--user-data-dir={profile}", "--no-first-run", page,
    ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stopping = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(number, stopping.set)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(await page_socket(http, arguments.debug_port), max_msg_size=64 << 20) as socket:
                tools = DevTools(socket)
                while await tools.evaluate("typeof window.publish") != "function":
                    await asyncio.sleep(0.1)
                rids = arguments.rids.split(",")
                scales = {rid: 2 ** (len(rids) - 1 - index) for index, rid in enumerate(rids)}
                order = list(reversed(rids)) if arguments.offer_order == "hml" else rids
                encodings = [dict(rid=rid, scaleResolutionDownBy=scales[rid], **(
                    {"scalabilityMode": arguments.scalability} if arguments.scalability else {})) for rid in order]
                width, height = map(int, arguments.size.split("x"))
                offer = await tools.evaluate(f"publish({width}, {height}, {json.dumps(encodings)})")
                emit("offer", sdp=offer)
                async with http.post(arguments.whip, data=offer, headers={"Content-Type": "application/sdp"}) as response:
                    answer = await response.text()
                    if response.status != 201:
                        raise RuntimeError(f"the WHIP endpoint answered {response.status}: {answer.strip()}")
                    location = response.headers["Location"]
                resource = str(response.url.join(URL(location)))
                emit("answer", location=location, sdp=answer)
                await tools.evaluate(f"pc.setRemoteDescription({{type: 'answer', sdp: {json.dumps(answer)}}})")
                emit("encodings", encodings=await tools.evaluate("pc.getSenders()[0].getParameters().encodings"))
                last = None
                while not stopping.is_set():
                    streams = [{key: s.get(key) for key in STAT_FIELDS} for s in json.loads(await tools.evaluate("outbound()"))]
                    summary = [(s["rid"], s["frameWidth"], s["frameHeight"], s["scalabilityMode"]) for s in streams]
                    if summary != last:
                        emit("outbound", streams=streams)
                        last = summary
                    try:
                        await asyncio.wait_for(stopping.wait(), arguments.stats_interval)
                    except asyncio.TimeoutError:
                        pass
                emit("outbound", streams=[{key: s.get(key) for key in STAT_FIELDS} for s in json.loads(await tools.evaluate("outbound()"))])
                async with http.delete(resource) as response:
                    emit("stopped", status=response.status)
    finally:
        stop_browser(browser)
        await runner.cleanup()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--whip", required=True, help="the WHIP endpoint's URL")
    parser.add_argument("--host", default="127.0.0.2", help="where the blank page is served")
    parser.add_argument("--size", default="1280x720", help="the fake camera's size, WxH")
    parser.add_argument("--rids", default="q,h,f", help="rids of the quarter, half and full encodings, lowest first")
    parser.add_argument("--offer-order", choices=["hml", "lmh"], default="hml",
                        help="the offer lists the encodings highest (hml) or lowest (lmh) first")
    parser.add_argument("--scalability", default="L1T3", help="scalabilityMode of each encoding ('' for none)")
    parser.add_argument("--debug-port", type=int, default=9334)
    parser.add_argument("--stats-interval", type=float, default=2)
    arguments = parser.parse_args()
    try:
        asyncio.run(publish(arguments))
    except Exception as error:
        emit("error", message=f"{type(error).__name__}: {error}")
        sys.exit(1)


if __name__ == "__main__":
    main()
