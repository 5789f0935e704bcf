#!/usr/bin/python3
"""A VideoRoom subscriber we did not write, for simulcast tests: aiortc subscribing to one
publisher (feed) of a Janus VideoRoom and asking for one simulcast substream and temporal layer.

It drives Janus's HTTP API as janus.js does: attach janus.plugin.videoroom, "join" as subscriber
to --feed with --substream and --temporal, answer Janus's offer, "start", then "configure" the
same substream and temporal layer with --fallback (how long Janus waits for a missing substream
before it drops to a lower one). Janus says when it switches ("substream" and "temporal"
events); once it has reached both targets, the subscriber lets --settle pictures pass and then
measures --frames decoded pictures: their sizes, and their rate from the RTP timestamps (90 kHz)
that the pictures carry, so a slow machine does not change the figure.

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC:
  {"event": "joined", "session": S, "handle": H}
  {"event": "started"}                  the answer and "start" went out
  {"event": "ice", "state": ...}
  {"event": "substream", "substream": N} / {"event": "temporal", "temporal": N}   Janus switched
  {"event": "frame", "n": N, "width", "height"}      the first picture and every 10th
  {"event": "settled", "substream": N, "temporal": N}
  {"event": "measured", "frames": N, "sizes": [[W, H, count], ...], "timestamps": N,
   "fps": F, "span": S}
        N pictures after settling; "timestamps" distinct RTP timestamps among them; "fps" is
        (N - 1) / S with S the RTP time they span, in seconds
then it hangs up and exits 0, or {"event": "error", "message": ...} and exit 1.
"""
import argparse
import asyncio
import sys
from collections import Counter

from aiortc import RTCPeerConnection, RTCSessionDescription

from aiortc_peer import emit, report_ice_states
from janus_api import JanusHTTP, JanusPlugin


class Measurement:
    """Pictures after the switch settles: sizes and RTP timestamps."""

    def __init__(self, settle, frames):
        self.settle = settle
        self.frames = frames
        self.decoded = 0
        self.sizes = Counter()
        self.timestamps = []
        self.settled = asyncio.Event()
        self.done = asyncio.get_running_loop().create_future()

    def add(self, frame):
        if not self.settled.is_set() or self.done.done():
            return
        if self.settle > 0:
            self.settle -= 1
            return
        self.sizes[(frame.width, frame.height)] += 1
        self.timestamps.append(frame.pts)
        if len(self.timestamps) == self.frames:
            self.done.set_result(self.report())

    def report(self):
        # RTP timestamps are 32 bits; the differences are taken modulo 2^32.
        span = sum((b - a) % (1 << 32) for a, b in zip(self.timestamps, self.timestamps[1:])) / 90000
        return {
            "frames": len(self.timestamps),
            "sizes": [[w, h, n] for (w, h), n in sorted(self.sizes.items())],
            "timestamps": len(set(self.timestamps)),
            "fps": (len(self.timestamps) - 1) / span if span > 0 else 0,
            "span": span,
        }


async def subscribe(arguments):
    janus = JanusHTTP(arguments.url)
    plugin = await JanusPlugin.attach(janus, "janus.plugin.videoroom")
    emit("joined", session=plugin.session, handle=plugin.handle)
    pc = RTCPeerConnection()
    report_ice_states(pc)
    measurement = Measurement(arguments.settle, arguments.frames)
    ended = asyncio.get_running_loop().create_future()

    @pc.on("track")
    def on_track(track):
        if track.kind != "video":
            return

        async def consume():
            try:
                while True:
                    frame = await track.recv()
                    measurement.decoded += 1
                    if measurement.decoded == 1 or measurement.decoded % 10 == 0:
                        emit("frame", n=measurement.decoded, width=frame.width, height=frame.height)
                    measurement.add(frame)
            except Exception as error:
                ended.set_result(f"the track ended after {measurement.decoded} pictures: {error!r}")

        asyncio.ensure_future(consume())

    layer = {"substream": arguments.substream, "temporal": arguments.temporal}
    event = await plugin.request({
        "request": "join", "ptype": "subscriber", "room": arguments.room, "streams": [dict(feed=arguments.feed, **layer)]})
    offer = event["jsep"]
    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer["sdp"], type=offer["type"]))
    await pc.setLocalDescription(await pc.createAnswer())
    await plugin.request({"request": "start"}, jsep={"type": pc.localDescription.type, "sdp": pc.localDescription.sdp})
    emit("started")
    mid = event["plugindata"]["data"]["streams"][0]["mid"]
    await plugin.request({"request": "configure", "streams": [dict(mid=mid, fallback=arguments.fallback, **layer)]})

    async def follow_switches():
        current = {"substream": None, "temporal": None}
        while True:
            data = (await plugin.events.get()).get("plugindata", {}).get("data", {})
            for key in current:
                if key in data:
                    current[key] = data[key]
                    emit(key, **{key: data[key]})
            if current == layer and not measurement.settled.is_set():
                emit("settled", **current)
                measurement.settled.set()

    follower = asyncio.ensure_future(follow_switches())
    try:
        await asyncio.wait([measurement.done, ended], timeout=arguments.timeout, return_when=asyncio.FIRST_COMPLETED)
        if not measurement.done.done():
            # Janus reports switches only for a simulcast publisher.
            why = ended.result() if ended.done() else (
                f"{measurement.decoded} pictures decoded in {arguments.timeout} s, Janus "
                + ("reached the layers" if measurement.settled.is_set() else "never reported reaching the layers"))
            raise RuntimeError(f"no {arguments.frames} pictures measured on substream {arguments.substream}, "
                               f"temporal {arguments.temporal}: {why}")
        emit("measured", **measurement.done.result())
    finally:
        follower.cancel()
        await pc.close()
        try:
            await plugin.destroy()
        except Exception:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8088/janus", help="Janus's HTTP API")
    parser.add_argument("--room", type=int, required=True)
    parser.add_argument("--feed", type=int, required=True, help="the publisher's feed id")
    parser.add_argument("--substream", type=int, choices=[0, 1, 2], default=2)
    parser.add_argument("--temporal", type=int, choices=[0, 1, 2], default=2)
    parser.add_argument("--fallback", type=int, default=10_000_000,
                        help="microseconds without the substream before Janus drops to a lower one")
    parser.add_argument("--settle", type=int, default=5, help="pictures to skip once Janus reached the layers")
    parser.add_argument("--frames", type=int, default=40, help="pictures to measure")
    parser.add_argument("--timeout", type=float, default=120, help="give up after this many seconds")
    arguments = parser.parse_args()
    try:
        asyncio.run(subscribe(arguments))
    except Exception as error:
        emit("error", message=f"{type(error).__name__}: {error}")
        sys.exit(1)


if __name__ == "__main__":
    main()
