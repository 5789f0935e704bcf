#!/usr/bin/python3
"""Glass-to-glass latency in headless Chromium: camrtp's stream against Chromium's own sender.

Each displayed frame's capture-to-display time is `expectedDisplayTime - captureTime` from
`requestVideoFrameCallback` (both on the page's clock), as the viewer page shows it. Two senders,
alternating, in one Chromium and one run:

  camrtp     `camrtp serve --source testsrc:640x480@30` to its viewer page (`GET /`)
  chromium   Chromium's fake camera (640x480 at 30 fps, --use-fake-device-for-media-stream) to
             itself through a loopback RTCPeerConnection pair: libwebrtc's whole send path

on a clean path (loopback), and through the project's impairment relay (40 ms RTT, 2 % loss each
way by default): the receiving browser relays everything through coturn, reached only through
the relay (benchkit/turn_path.py; the kernel has no netem). Every case warms up (--warmup, 10 s:
jitter buffers settle, camrtp's capture times start once DLRR gave the browser its RTT), then
frames are measured for --seconds (20). Per case and round: frames displayed and the share with a
capture time, p50 and p95, and the receiver's bitrate, packets per frame, freezeCount, packets
lost, NACKs and FEC packets over the window; the report gives the medians over --rounds (3) (freezes summed) and
camrtp / chromium ratios paired by round. A round whose page lost its connection and made a new one
in the window (the new connection's counters start at zero) is left out, and the report says so.

  /usr/bin/python3 Benchmarks/glass_to_glass.py                           # both paths
  /usr/bin/python3 Benchmarks/glass_to_glass.py --path clean --rounds 5
  /usr/bin/python3 Benchmarks/glass_to_glass.py --camrtp-variant "camrtp 0-100=--playout-delay 0-100"
  /usr/bin/python3 Benchmarks/glass_to_glass.py --camrtp-variant "camrtp smooth=?latency=smooth"

A variant is NAME=ARGS: `serve` arguments, and `?QUERY` for the viewer page's address. Needs
chromium, coturn's turnserver (relay path) and aiohttp (Debian's python3-aiohttp).
"""

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from benchkit.common import MachineLoad, ToolFailed, cell, log_tail, median_of, paired, rotated, stop_process, table
from benchkit.devtools import Chromium
from benchkit.ports import free_port
from benchkit.turn_path import TurnPath

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CAMRTP = os.path.join(os.path.dirname(BENCH_DIR), ".build", "release", "camrtp")
SOURCE = "testsrc:640x480@30"

# Runs in every page before its own script: records each displayed frame and every peer
# connection (for freezeCount), and gives the viewer page the path's ICE configuration.
PRELUDE = """
window.glass = { frames: [], connections: [] };
(() => {
  const Native = window.RTCPeerConnection, override = %(override)s;
  window.glassConfiguration = %(configuration)s;
  window.RTCPeerConnection = function (configuration) {
    const connection = new Native(override ? { ...(configuration || {}), ...window.glassConfiguration } : configuration);
    window.glass.connections.push(connection);
    return connection;
  };
  window.RTCPeerConnection.prototype = Native.prototype;
  document.addEventListener("DOMContentLoaded", () => {
    const video = document.querySelector("video");
    const shown = (now, metadata) => {
      window.glass.frames.push([metadata.expectedDisplayTime,
        typeof metadata.captureTime === "number" ? metadata.expectedDisplayTime - metadata.captureTime : null]);
      video.requestVideoFrameCallback(shown);
    };
    video.requestVideoFrameCallback(shown);
  });
})();
"""

# Chromium sending its fake camera to itself; the receiving connection takes the path's configuration.
LOOPBACK_PAGE = """<!doctype html><html><body><video autoplay muted playsinline></video><script>
(async () => {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480, frameRate: 30 } });
  const sender = new RTCPeerConnection(), receiver = new RTCPeerConnection(window.glassConfiguration);
  sender.onicecandidate = (event) => event.candidate && receiver.addIceCandidate(event.candidate);
  receiver.onicecandidate = (event) => event.candidate && sender.addIceCandidate(event.candidate);
  sender.addTransceiver(stream.getVideoTracks()[0], { direction: "sendonly" });
  receiver.ontrack = (event) => { document.querySelector("video").srcObject = new MediaStream([event.track]); };
  await sender.setLocalDescription(await sender.createOffer());
  await receiver.setRemoteDescription(sender.localDescription);
  await receiver.setLocalDescription(await receiver.createAnswer());
  await sender.setRemoteDescription(receiver.localDescription);
})();
</script></body></html>
"""

# The receivers' counters: freezes, dropped frames, the jitter buffer, and how losses were
# repaired (NACKs, FEC packets: Chromium 156 leaves those out for video).
RECEIVER_COUNTS = """(async () => {
  const counts = { freezes: 0, duration: 0, nacks: 0, fec: 0, fecDiscarded: 0, lost: 0, bytes: 0, packets: 0, frames: 0, dropped: 0, jitterBufferDelay: 0, jitterBufferEmitted: 0,
    decoded: 0, sent: 0, connections: window.glass.connections.length, now: performance.now() };
  for (const connection of window.glass.connections) {
    (await connection.getStats()).forEach((s) => {
      if (s.type === "outbound-rtp" && s.kind === "video") counts.sent += s.framesSent || 0;
      if (s.type !== "inbound-rtp" || s.kind !== "video") return;
      counts.decoded += s.framesDecoded || 0;
      counts.freezes += s.freezeCount || 0; counts.duration += s.totalFreezesDuration || 0;
      counts.nacks += s.nackCount || 0; counts.fec += s.fecPacketsReceived || 0; counts.lost += s.packetsLost || 0;
      counts.fecDiscarded += s.fecPacketsDiscarded || 0; counts.dropped += s.framesDropped || 0;
      counts.jitterBufferDelay += s.jitterBufferDelay || 0; counts.jitterBufferEmitted += s.jitterBufferEmittedCount || 0;
      counts.bytes += s.bytesReceived || 0; counts.packets += s.packetsReceived || 0; counts.frames += s.framesReceived || 0;
    });
  }
  return counts;
})()"""


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else None


class Serve:
    """`camrtp serve` on a free port, stopped with SIGINT."""

    def __init__(self, camrtp, arguments, workdir, name):
        self.port = free_port()
        self.log_path = os.path.join(workdir, f"serve-{name.replace(' ', '_')}-{self.port}.log")
        self.command = [camrtp, "serve", "--source", SOURCE, "--http", f"127.0.0.1:{self.port}",
                        "--local-address", "127.0.0.1", *arguments]

    def __enter__(self):
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while b"serving" not in open(self.log_path, "rb").read():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise ToolFailed(f"camrtp serve did not start: {shlex.join(self.command)}\n{log_tail(self.log_path)}")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        stop_process(self.process, signal.SIGINT, 20)
        self.log.close()


# What camrtp serve sent its viewers (GET /metrics, summed over them): all bytes, FEC's and repairs',
# and the frames.
BYTE_SERIES = ("camrtp_viewer_sent_bytes_total", "camrtp_viewer_fec_bytes_total", "camrtp_viewer_retransmitted_bytes_total")
FRAME_SERIES = "camrtp_viewer_frames_forwarded_total"
SENDER_SERIES = BYTE_SERIES + (FRAME_SERIES,)


async def sender_counts(browser, metrics_url):
    """SENDER_SERIES from camrtp's metrics, or None without a URL (Chromium's own sender)."""
    if metrics_url is None:
        return None
    async with browser.http.get(metrics_url) as response:
        text = await response.text()
    counts = dict.fromkeys(SENDER_SERIES, 0.0)
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        name = name.split("{")[0]
        if name in counts:
            counts[name] += float(value.rsplit(" ", 1)[-1])
    return counts


async def measure_page(browser, url, configuration, override, warmup, seconds, metrics_url=None):
    """`metrics_url`: camrtp's /metrics, for the FEC it sent (Chromium 156 reports none it received)."""
    prelude = PRELUDE % {"override": json.dumps(override), "configuration": json.dumps(configuration or {})}
    page = await browser.open(url, before_load=prelude)
    try:
        await asyncio.sleep(warmup)
        start, sent_start = await page.evaluate(RECEIVER_COUNTS), await sender_counts(browser, metrics_url)
        await asyncio.sleep(seconds)
        end, sent_end = await page.evaluate(RECEIVER_COUNTS), await sender_counts(browser, metrics_url)
        frames = await page.evaluate("window.glass.frames")
    finally:
        await page.close()
    window = [latency for shown, latency in frames if start["now"] <= shown < end["now"]]

    def delta(key):
        return end[key] - start[key]

    timed = [latency for latency in window if latency is not None]
    # Frames the sender sent in the window: camrtp's own count, or the sending connection's
    # outbound-rtp in Chromium's loopback page. Both ends are read at the same moment, so the
    # frames in flight at the start and at the end cancel out.
    frames_sent = sent_end[FRAME_SERIES] - sent_start[FRAME_SERIES] if sent_start is not None else delta("sent")
    return {
        # A page that lost its connection makes a new one, whose counters start again at zero:
        # such a window measures nothing, and the report leaves it out.
        "reconnected": end["connections"] != start["connections"],
        "framesSent": frames_sent, "framesDecoded": delta("decoded"),
        "decodedPercent": 100 * delta("decoded") / frames_sent if frames_sent > 0 else None,
        "framesShown": len(window), "framesWithCaptureTime": len(timed),
        "captureTimePercent": 100 * len(timed) / len(window) if window else 0,
        "fps": len(window) / seconds, "p50Ms": percentile(timed, 50), "p95Ms": percentile(timed, 95),
        "freezeCount": end["freezes"] - start["freezes"], "freezeSeconds": end["duration"] - start["duration"],
        "packetsLost": end["lost"] - start["lost"], "nackCount": end["nacks"] - start["nacks"],
        "fecPacketsReceived": end["fec"] - start["fec"], "fecPacketsDiscarded": end["fecDiscarded"] - start["fecDiscarded"],
        "fecPercent": sent_fec_percent(sent_start, sent_end),
        "framesDropped": end["dropped"] - start["dropped"],
        "jitterBufferMsPerFrame": 1000 * delta("jitterBufferDelay") / max(1, delta("jitterBufferEmitted")),
        "kbps": 8 * (end["bytes"] - start["bytes"]) / 1000 / seconds,
        "packetsPerFrame": (end["packets"] - start["packets"]) / max(1, end["frames"] - start["frames"]),
    }


def sent_fec_percent(start, end):
    """FEC bytes against media bytes (all sent, less FEC and repairs) over the window."""
    if start is None or end is None:
        return None
    sent, fec, repairs = (end[name] - start[name] for name in BYTE_SERIES)
    media = sent - fec - repairs
    return 100 * fec / media if media > 0 else None


def parse_variant(text):
    name, _, arguments = text.partition("=")
    words = shlex.split(arguments)
    query = next((word for word in words if word.startswith("?")), "")
    return name.strip(), [word for word in words if not word.startswith("?")], query


async def run(options):
    workdir = options.workdir or tempfile.mkdtemp(prefix="glass-")
    os.makedirs(workdir, exist_ok=True)
    loopback_page = os.path.join(workdir, "loopback.html")
    with open(loopback_page, "w") as f:
        f.write(LOOPBACK_PAGE)
    variants = [("camrtp", [], "")] + [parse_variant(text) for text in options.camrtp_variant]
    results = {}
    loads = {}
    async with Chromium(free_port(), workdir) as browser:
        for path in options.path:
            names = ["chromium"] + [name for name, _, _ in variants]
            runs = {name: [] for name in names}
            with MachineLoad() as load:
                for round_index in range(options.rounds):
                    for name in rotated(names, round_index):
                        with contextlib.ExitStack() as stack:
                            configuration = None
                            if path == "relay":
                                turn = stack.enter_context(TurnPath(
                                    workdir, options.one_way_delay_ms, options.loss / 100, seed=round_index + 1))
                                configuration = turn.ice_servers
                            if name == "chromium":
                                result = await measure_page(
                                    browser, f"file://{loopback_page}", configuration, False, options.warmup, options.seconds)
                            else:
                                _, arguments, query = next(variant for variant in variants if variant[0] == name)
                                serve = stack.enter_context(Serve(options.camrtp, arguments, workdir, name))
                                result = await measure_page(
                                    browser, f"http://127.0.0.1:{serve.port}/{query}", configuration, True,
                                    options.warmup, options.seconds, f"http://127.0.0.1:{serve.port}/metrics")
                        runs[name].append(result)
                        print(f"  {path} round {round_index + 1}/{options.rounds}: {name}: p50 {cell(result['p50Ms'])} ms, "
                              f"p95 {cell(result['p95Ms'])} ms, {result['freezeCount']} freezes", file=sys.stderr)
            results[path] = runs
            loads[path] = load.report()
    return results, loads


def report(results, loads, options):
    for path, runs in results.items():
        title = ("clean path (loopback)" if path == "clean"
                 else f"through the impairment relay: {2 * options.one_way_delay_ms:g} ms RTT, {options.loss:g} % loss each way")
        print(f"\nGlass to glass, {title}; medians over {options.rounds} rounds of {options.seconds:g} s")
        rows = []
        measured = {name: [run for run in name_runs if not run["reconnected"]] for name, name_runs in runs.items()}
        for name, name_runs in measured.items():
            median = median_of(name_runs)
            pooled = name_runs
            rows.append([name, cell(median["fps"]), cell(median.get("decodedPercent")), cell(median["kbps"], 0), cell(median["packetsPerFrame"]),
                         cell(median["captureTimePercent"], 0, " %"), cell(median["p50Ms"]),
                         cell(median["p95Ms"]), f"{sum(run['freezeCount'] for run in pooled)}",
                         cell(sum(run["freezeSeconds"] for run in pooled), 2), cell(median["packetsLost"], 0),
                         cell(median["nackCount"], 0), cell(median["fecPacketsReceived"], 0),
                         cell(median["fecPacketsDiscarded"], 0), cell(median.get("fecPercent")), cell(median["framesDropped"], 0),
                         cell(median["jitterBufferMsPerFrame"])])
        print(table(["sender", "fps", "decoded % of sent", "kbit/s", "packets/frame", "with capture time", "p50 ms", "p95 ms", "freezes (rounds measured)", "frozen s",
                     "lost", "NACKs", "FEC packets", "FEC discarded", "FEC %", "frames dropped", "jitter buffer ms/frame"], rows))
        for name, name_runs in runs.items():
            for index, run in enumerate(name_runs):
                if run["reconnected"]:
                    print(f"{name}: round {index + 1} left out: the page lost its connection and made a new one in the window")
        for name in runs:
            if name == "chromium":
                continue
            both = [(a, b) for a, b in zip(runs[name], runs["chromium"]) if not a["reconnected"] and not b["reconnected"]]
            if not both:
                continue
            rounds = {name: [a for a, _ in both], "chromium": [b for _, b in both]}
            p50 = paired(rounds, name, "chromium", "p50Ms")
            p95 = paired(rounds, name, "chromium", "p95Ms")
            print(f"{name} / chromium: p50 {p50:.2f}, p95 {p95:.2f} (the {len(both)} rounds both measured)")
        print(MachineLoad.describe(loads[path]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--camrtp", default=DEFAULT_CAMRTP)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--path", type=lambda text: text.split(","), default=["clean", "relay"],
                        help="clean, relay or both (clean,relay)")
    parser.add_argument("--one-way-delay-ms", type=float, default=20)
    parser.add_argument("--loss", type=float, default=2, help="percent, each way")
    parser.add_argument("--camrtp-variant", action="append", default=[], metavar="NAME=ARGS")
    parser.add_argument("--json", help="every round's figures")
    parser.add_argument("--workdir", help="keep logs here")
    options = parser.parse_args()
    if not os.access(options.camrtp, os.X_OK):
        sys.exit(f"{options.camrtp}: no camrtp binary (swift build -c release, which builds camrtp and camrtp-webrtc, or --camrtp PATH)")
    results, loads = asyncio.run(run(options))
    report(results, loads, options)
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"results": results, "load": loads}, f, indent=1)


if __name__ == "__main__":
    main()
