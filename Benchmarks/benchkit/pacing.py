"""compare.py pacing: what the pacer costs and buys on a clean path. A 1280x720 clip at 2500
kbit/s, keyframes every second from camrtp, goes through the relay (20 ms each way, no loss, no
bottleneck) to the GStreamer receiver with transport-wide feedback, so camrtp paces at 1.1 x its
target once feedback comes. camrtp paced and with --pacing off, beside GStreamer's and ffmpeg's
senders (which send each frame at once; their only keyframe is the first).

- keyframe spread: first to last packet of a keyframe at the receiver; frame spread: the same
  for the other frames (median).
- burst p99: for each media packet, the bytes that arrived in the 5 ms up to it, as a rate; the
  99th percentile over the packets. A bottleneck's queue sees these bursts.
- jitter: RFC 3550 interarrival jitter (section 6.4.1, A.8) at the receiver, mean over the run in
  ms. Packets of one frame share a timestamp, so spreading a frame raises it.
- camrtp's own capture-to-wire latency (p50, p99, max: keyframes make the tail) and its pacer's
  queue time p99, from --stats-json."""

import statistics
import sys

from .closed_loop import median_field, prepare_case, row_descriptions, run_matrix
from .common import cell, table
from .relay import LinkProfile
from .session import run_session
from .stream_analysis import MEDIA_PAYLOAD_TYPE, RTP_CLOCK_HZ, media_ssrc, percentile

SIZE = (1280, 720)
CLIP_SECONDS = 10
FRAMES = 30 * CLIP_SECONDS
KBPS = 2500
ONE_WAY_DELAY_MS = 20
BURST_WINDOW_NS = 5_000_000
CAMRTP_VARIANTS = [
    ("camrtp", [], None),
    ("camrtp pacing off", ["--pacing", "off"], None),
]
CAMRTP_OPTIONAL = [["--keyframe-interval", "1"], ["--retransmit", "rtx"], ["--local-port", "{local_port}"]]
CONDITION = "clean"


def wire_figures(packets):
    """Keyframe and frame spread, burst p99 and RFC 3550 jitter of the original media packets."""
    ssrc = media_ssrc(packets)
    media = sorted((p for p in packets if p.ssrc == ssrc and p.payload_type == MEDIA_PAYLOAD_TYPE),
                   key=lambda p: p.arrival_ns)
    frames = {}
    for packet in media:
        frames.setdefault(packet.timestamp, []).append(packet)
    keyframe_spreads, frame_spreads = [], []
    for frame in frames.values():
        spread_ms = (frame[-1].arrival_ns - frame[0].arrival_ns) / 1e6
        (keyframe_spreads if any(p.keyframe for p in frame) else frame_spreads).append(spread_ms)
    bursts, window_start, window_bytes = [], 0, 0
    for index, packet in enumerate(media):
        window_bytes += packet.size
        while media[window_start].arrival_ns <= packet.arrival_ns - BURST_WINDOW_NS:
            window_bytes -= media[window_start].size
            window_start += 1
        bursts.append(window_bytes * 8 / (BURST_WINDOW_NS / 1e9) / 1e6)
    jitter, jitters, previous = 0.0, [], None
    for packet in media:
        transit = packet.arrival_ns * RTP_CLOCK_HZ / 1e9 - packet.timestamp
        if previous is not None:
            jitter += (abs(transit - previous) - jitter) / 16
            jitters.append(jitter)
        previous = transit
    return {"keyframes": len(keyframe_spreads),
            "keyframeSpreadMedianMs": statistics.median(keyframe_spreads) if keyframe_spreads else None,
            "keyframeSpreadMaxMs": max(keyframe_spreads) if keyframe_spreads else None,
            "frameSpreadMedianMs": statistics.median(frame_spreads) if frame_spreads else None,
            "burstP99Mbps": percentile(bursts, 0.99),
            "jitterMeanMs": statistics.mean(jitters) * 1000 / RTP_CLOCK_HZ if jitters else None}


def bench_pacing(args, workdir):
    clip, source, rows, transport_cc = prepare_case(args, workdir, SIZE, FRAMES, KBPS, CAMRTP_VARIANTS,
                                                    CAMRTP_OPTIONAL)

    def run_one(row, condition, round_index):
        outcome = run_session(row, LinkProfile(one_way_delay_ms=ONE_WAY_DELAY_MS), clip, source, KBPS, workdir,
                              f"pacing-{row.name.replace(' ', '_')}-{round_index}", seed=round_index + 1,
                              clip_seconds=CLIP_SECONDS,
                              transport_cc_extension_id=row.transport_cc_extension_id or transport_cc,
                              keep_files=args.keep)
        result = {"failure": outcome.failure, "decodedFrames": outcome.decoded_frames,
                  "frameDelayP95Ms": outcome.stream["frameDelayP95Ms"],
                  "senderCpuSeconds": outcome.sender.get("cpuSeconds")}
        result.update(wire_figures(outcome.tap_packets))
        stats = outcome.sender.get("senderStats", {})
        for name, key in (("latencyP50Ms", "p50"), ("latencyP99Ms", "p99"), ("latencyMaxMs", "max")):
            result[name] = stats.get("latencyMs", {}).get(key)
        result["pacerQueueP99Ms"] = stats.get("pacerQueueMs", {}).get("p99")
        return result

    print(f"pacing: {SIZE[0]}x{SIZE[1]} testsrc2, {FRAMES} frames at {KBPS} kbit/s, clean path", file=sys.stderr)
    runs, unsupported = run_matrix(rows, [CONDITION], args.rounds, run_one)
    return {"clip": f"{SIZE[0]}x{SIZE[1]} testsrc2 {FRAMES} frames", "kbps": KBPS, "oneWayDelayMs": ONE_WAY_DELAY_MS,
            "rows": row_descriptions(rows, transport_cc), "unsupported": unsupported,
            "runs": {name: results for (name, _), results in runs.items()},
            "medians": {name: {key: median_field(results, key) for key in results[0] if key != "failure"}
                        for (name, _), results in runs.items() if results}}


def print_pacing(report, rounds):
    print(f"\n== pacing: {report['clip']} at {report['kbps']} kbit/s in real time, {report['oneWayDelayMs']} ms "
          f"each way, no loss or bottleneck, GStreamer receiver with transport-wide feedback; medians of {rounds} "
          f"rounds ==")
    headers = ["sender", "keyframes", "keyframe spread ms", "max", "frame spread ms", "burst p99 Mbit/s",
               "jitter ms", "delay p95 ms", "latency p50 ms", "p99", "max", "pacer queue p99 ms", "CPU s"]
    lines = []
    for row in report["rows"]:
        value = report["medians"].get(row["name"])
        if row["name"] in report["unsupported"] or value is None:
            continue
        lines.append([row["name"], cell(value.get("keyframes"), 0), cell(value.get("keyframeSpreadMedianMs")),
                      cell(value.get("keyframeSpreadMaxMs")), cell(value.get("frameSpreadMedianMs")),
                      cell(value.get("burstP99Mbps")), cell(value.get("jitterMeanMs"), 2),
                      cell(value.get("frameDelayP95Ms")), cell(value.get("latencyP50Ms")),
                      cell(value.get("latencyP99Ms")), cell(value.get("latencyMaxMs")),
                      cell(value.get("pacerQueueP99Ms")), cell(value.get("senderCpuSeconds"), 2)])
    print(table(headers, lines))
    print("senders (receiver):")
    for row in report["rows"]:
        if row["name"] not in report["unsupported"]:
            print(f"  {row['name']} ({row['receiver']}): {row['command']}")
