#!/usr/bin/python3
"""A WebRTC viewer we did not write, for interop tests: aiortc watching a Janus streaming mountpoint.

It drives Janus's HTTP API as a browser's janus.js would: create a session, attach
janus.plugin.streaming, "watch" the mountpoint, answer Janus's JSEP offer, "start". Then it
decodes the video track and writes each picture to --output as 4:2:0 Y4M, until --frames
pictures are written. It reports on stdout, one JSON object a line, each with "t": seconds on
CLOCK_MONOTONIC (comparable with the test's own clock):
  {"event": "attached", ...}            the handle exists
  {"event": "watch", ...}               the watch request went out: the viewer joins here
  {"event": "offer", ...}               Janus's offer arrived
  {"event": "started", ...}             the answer and "start" went out
  {"event": "ice", "state": ...}        ICE connection state changes
  {"event": "frame", "n": N, "width", "height", ...}   for the first picture and every 10th
  {"event": "done", "frames": N, ...}   then it hangs up and exits 0
or {"event": "error", "message": ...} and exit 1.

Janus skips loopback interfaces for ICE and aioice skips 127.0.0.1, so tests run Janus and this
viewer in a network namespace whose only usable address is 127.0.0.2.
"""
import argparse
import asyncio
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription

from aiortc_peer import emit, receive_frames, report_ice_states
from janus_api import JanusHTTP


def y4m_writer(path):
    """Writes pictures as 4:2:0 Y4M; the header takes the first picture's size."""
    handle = open(path, "wb")
    state = {"header": False}

    def write(frame):
        if not state["header"]:
            handle.write(f"YUV4MPEG2 W{frame.width} H{frame.height} F30:1 Ip A1:1 C420jpeg\n".encode())
            state["header"] = True
        handle.write(b"FRAME\n")
        for plane, (width, height) in zip(frame.planes, [(frame.width, frame.height)] + [((frame.width + 1) // 2, (frame.height + 1) // 2)] * 2):
            data = bytes(plane)
            for row in range(height):
                handle.write(data[row * plane.line_size: row * plane.line_size + width])
        handle.flush()

    return write, handle


async def watch(arguments):
    janus = JanusHTTP(arguments.url)
    session = (await janus.post("", {"janus": "create"}))["data"]["id"]
    handle = (await janus.post(f"/{session}", {"janus": "attach", "plugin": "janus.plugin.streaming"}))["data"]["id"]
    emit("attached", session=session, handle=handle)

    pc = RTCPeerConnection()
    write, output = y4m_writer(arguments.output)
    decoded = asyncio.get_running_loop().create_future()

    report_ice_states(pc)

    @pc.on("track")
    def on_track(track):
        if track.kind != "video":
            return

        async def consume():
            count = await receive_frames(
                track, limit=arguments.frames, on_frame=lambda frame, _: write(frame.reformat(format="yuv420p")))
            if decoded.done():
                return
            if count < arguments.frames:  # the track ended: report what was decoded
                decoded.set_exception(RuntimeError(f"track ended after {count} frames"))
            else:
                decoded.set_result(count)

        asyncio.ensure_future(consume())

    emit("watch", mountpoint=arguments.mountpoint)
    await janus.post(f"/{session}/{handle}", {"janus": "message", "body": {"request": "watch", "id": arguments.mountpoint}})
    offer = None
    while offer is None:
        for event in await janus.poll(session):
            if event.get("janus") == "event" and "jsep" in event:
                offer = event["jsep"]
            elif event.get("janus") == "event" and "error" in event.get("plugindata", {}).get("data", {}):
                raise RuntimeError(f"watch failed: {event['plugindata']['data']}")
    emit("offer")

    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer["sdp"], type=offer["type"]))
    await pc.setLocalDescription(await pc.createAnswer())
    answer = {"type": pc.localDescription.type, "sdp": pc.localDescription.sdp}
    await janus.post(f"/{session}/{handle}", {"janus": "message", "body": {"request": "start"}, "jsep": answer})
    emit("started")

    async def keep_polling():
        # Janus keeps a session alive while it is polled; the events themselves are not needed.
        while True:
            await janus.poll(session)

    poller = asyncio.ensure_future(keep_polling())
    try:
        frames = await asyncio.wait_for(decoded, arguments.timeout)
    finally:
        poller.cancel()
        output.close()
    emit("done", frames=frames)
    await pc.close()
    try:
        await janus.post(f"/{session}", {"janus": "destroy"})
    except Exception:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8088/janus", help="Janus's HTTP API")
    parser.add_argument("--mountpoint", type=int, default=1, help="streaming mountpoint id")
    parser.add_argument("--frames", type=int, default=30, help="pictures to decode before hanging up")
    parser.add_argument("--output", required=True, help="Y4M file for the decoded pictures")
    parser.add_argument("--timeout", type=float, default=60, help="give up after this many seconds without --frames pictures")
    arguments = parser.parse_args()
    try:
        asyncio.run(watch(arguments))
    except Exception as error:
        emit("error", message=f"{type(error).__name__}: {error}")
        sys.exit(1)


if __name__ == "__main__":
    main()
