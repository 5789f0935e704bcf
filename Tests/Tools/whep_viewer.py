#!/usr/bin/python3
"""A WHEP player we did not write, for end-to-end tests: aiortc offers recvonly VP8, aiohttp
POSTs the offer, the answer is applied and the track decoded.

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC:
  {"event": "post", "status": S, "location": "...", "etag": "...", "body": "..."}   the POST's answer
  {"event": "ice", "state": ...}                                      ICE connection state changes
  {"event": "frame", "n": N, "width": W, "height": H}  the first decoded picture and every 10th
  {"event": "done", "frames": N}                       after --frames pictures (or the track ended)
  {"event": "delete", "status": S}                     the DELETE's answer (--delete)

--token sends Authorization: Bearer with the offer; --cafile trusts that CA (PEM) for https.

aioice skips 127.0.0.1, so tests run this in a network namespace whose veth carries 127.0.0.2.
"""
import argparse
import asyncio
import ssl
import sys
from urllib.parse import urljoin

import aiohttp
from aiortc import RTCPeerConnection, RTCSessionDescription

from aiortc_peer import emit, receive_frames, report_ice_states


async def play(arguments):
    pc = RTCPeerConnection()
    pc.addTransceiver("video", direction="recvonly")
    enough = asyncio.Event()
    count = 0

    report_ice_states(pc)

    @pc.on("track")
    def on_track(track):
        def counted(frame, n):
            nonlocal count
            count = n
            if count >= arguments.frames:
                enough.set()

        async def consume():
            await receive_frames(track, on_frame=counted)
            enough.set()

        asyncio.ensure_future(consume())

    await pc.setLocalDescription(await pc.createOffer())
    headers = {"Content-Type": "application/sdp"}
    if arguments.token:
        headers["Authorization"] = "Bearer " + arguments.token
    connector = aiohttp.TCPConnector(ssl=ssl.create_default_context(cafile=arguments.cafile)) if arguments.cafile else None
    async with aiohttp.ClientSession(connector=connector) as http:
        async with http.post(arguments.url, data=pc.localDescription.sdp, headers=headers) as response:
            body = await response.text()
            location = response.headers.get("Location")
            emit("post", status=response.status, location=location, etag=response.headers.get("ETag"),
                 body=body if response.status != 201 else "")
            if response.status != 201:
                await pc.close()
                return 1
        await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
        await enough.wait()
        emit("done", frames=count)
        if arguments.delete:
            async with http.delete(urljoin(arguments.url, location)) as response:
                emit("delete", status=response.status)
    await pc.close()
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--delete", action="store_true")
    parser.add_argument("--token")
    parser.add_argument("--cafile")
    sys.exit(asyncio.run(play(parser.parse_args())))


if __name__ == "__main__":
    main()
