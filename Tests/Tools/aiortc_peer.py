"""What the aiortc test peers share: one JSON line per event on stdout, which the tests wait
for, and a video track decoded frame by frame."""

import json
import sys
import time


def emit(event, **fields):
    sys.stdout.write(json.dumps({"event": event, "t": time.monotonic(), **fields}) + "\n")
    sys.stdout.flush()


def report_ice_states(pc):
    @pc.on("iceconnectionstatechange")
    def on_ice_state():
        emit("ice", state=pc.iceConnectionState)


async def receive_frames(track, limit=None, on_frame=None):
    """Decodes `track` until `limit` frames (None: until it ends), calls `on_frame(frame, count)`
    for each and emits "frame" for the first and every tenth. Returns the count; the track's end
    is emitted as "track-ended"."""
    count = 0
    try:
        while limit is None or count < limit:
            frame = await track.recv()
            count += 1
            if on_frame:
                on_frame(frame, count)
            if count == 1 or count % 10 == 0:
                emit("frame", n=count, width=frame.width, height=frame.height)
    except Exception as error:
        emit("track-ended", frames=count, reason=repr(error))
    return count
