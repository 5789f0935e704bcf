"""compare.py fec: forward error correction where NACK comes too late. One clip sent in real
time through 2 and 5 % random loss (and loss-free, for the intact-frame reference) on a path of
200 ms RTT (or --rtt's), 100 ms each way, into GStreamer receiving RED and ULPFEC as webrtcbin
does (Tests/Tools/gst_fec_receiver.py), NACK on, with the 200 ms jitter buffer of the other
cases: camrtp with NACK alone (--fec off) and with --fec auto, both repairing on RTX, the same
pair without header extensions (see CAMRTP_VARIANTS), and GStreamer's own sender with
rtpulpfecenc and rtpredenc, its FEC percentages set to what camrtp's policy chooses at the
path's loss.

Freezes: the receiver notes when each frame leaves its decoder; a freeze is a gap between two
frames longer than 200 ms (six frames at 30 fps), and its length counts in the freeze time. A
stream that breaks at its very end is not a gap (nothing follows it)."""

import re
import statistics
import sys

from .closed_loop import median_field, prepare_case, row_descriptions, run_matrix
from .common import cell, ratio, table
from .feedback import (
    CLIP_SECONDS, FRAMES, KBPS, LOSSES, SIZE, add_intact, condition_label, condition_rows, conditions, loss_label, session_result)
from .receivers import GStreamerFECReceiver, JITTER_BUFFER_LATENCY_MS
from .relay import LinkProfile
from .rtp_tap import REDFormat
from .senders import DEFAULT_RTX_PAYLOAD_TYPE, GStreamerFECAnchor
from .session import run_session

# The feedback case's clip and losses; a longer path, where NACK alone comes too late.
DEFAULT_RTTS_MS = (200,)
# camrtp rows, all repairing on RTX as a WebRTC sender does. GStreamer 1.22's rtpreddec leaves
# the header extensions off the packets it unwraps, so rtpulpfecdec XORs FEC made over packets
# with extensions against packets without, and every packet it rebuilds is damaged (fixed in
# later GStreamer, which copies them over). The last two rows send none, as GStreamer's own
# sender does; with no transport feedback `auto` would learn the loss only from GStreamer's
# receiver reports, which carry a report block every few seconds, so they use `on`, the
# protection auto chooses at 5 %.
BARE = ["--no-transport-cc", "--no-abs-capture-time"]
CAMRTP_VARIANTS = [
    ("camrtp nack only", ["--retransmit", "rtx", "--fec", "off"], None),
    ("camrtp fec auto", ["--retransmit", "rtx", "--fec", "auto"], None),
    ("camrtp nack only, no extensions", ["--retransmit", "rtx", "--fec", "off"] + BARE, None),
    ("camrtp fec on, no extensions", ["--retransmit", "rtx", "--fec", "on"] + BARE, None),
]
CAMRTP_OPTIONAL = [["--local-port", "{local_port}"]]
# What camrtp's SDP gives with --retransmit rtx and FEC (checked against the build's).
RED_PAYLOAD_TYPE, ULPFEC_PAYLOAD_TYPE = 98, 99
# (with FEC, NACK alone) pairs whose freeze time and damaged frames are compared.
PAIRS = [("camrtp fec auto", "camrtp nack only"),
         ("camrtp fec on, no extensions", "camrtp nack only, no extensions")]


def camrtp_fec_percentages(loss):
    """camrtp's FECPolicy at a loss, as rtpulpfecenc percentages (delta frames, keyframes): one
    FEC packet per group of g, g the largest with (1 - loss)^g >= 0.8; delta frames at most 20 %,
    keyframes twice that, at most 50 %."""
    if loss <= 0:
        return 0, 0
    arrives = 1 - min(loss, 0.5)
    group, repaired = 1, arrives
    while group < 48 and repaired * arrives >= 0.8:
        group, repaired = group + 1, repaired * arrives
    share = 1 / group
    return round(100 * min(0.2, share)), round(100 * min(0.5, 2 * share))


def fec_payload_types(build):
    """RED's and ULPFEC's payload types in this build's SDP with the auto row's arguments."""
    sdp = build.sdp(["--retransmit", "rtx", "--fec", "auto"])
    found = {name: int(pt) for pt, name in re.findall(r"a=rtpmap:(\d+) (red|ulpfec)/90000", sdp)}
    return found.get("red", RED_PAYLOAD_TYPE), found.get("ulpfec", ULPFEC_PAYLOAD_TYPE)


def bench_fec(args, workdir):
    red, ulpfec = fec_payload_types(args.camrtp_build)
    anchor = GStreamerFECAnchor(red, ulpfec, DEFAULT_RTX_PAYLOAD_TYPE, camrtp_fec_percentages)
    clip, source, rows, transport_cc = prepare_case(args, workdir, SIZE, FRAMES, KBPS, CAMRTP_VARIANTS,
                                                    CAMRTP_OPTIONAL, anchors=[anchor])
    rtts = args.rtt or DEFAULT_RTTS_MS

    def receiver(session_dir, rtp_port, feedback_port, sender, transport_cc_extension_id):
        rtx_apt = red if getattr(sender, "rtx_carries_red", False) else None
        return GStreamerFECReceiver(session_dir, rtp_port, feedback_port, red, ulpfec, sender.rtx_payload_type, rtx_apt,
                                    transport_cc_extension_id)

    def run_one(row, condition, round_index):
        rtt, loss = condition
        outcome = run_session(row, LinkProfile(loss=loss, one_way_delay_ms=rtt / 2), clip, source, KBPS, workdir,
                              f"fec-{row.name.replace(' ', '_')}-{loss}-{rtt:g}-{round_index}", seed=round_index + 1,
                              clip_seconds=CLIP_SECONDS,
                              transport_cc_extension_id=row.transport_cc_extension_id or transport_cc,
                              keep_files=args.keep, receiver=receiver, red=REDFormat(red, ulpfec))
        result = session_result(outcome)
        figures = outcome.receiver_figures or {}
        for key in ("fecRecovered", "fecUnrecovered", "freezes", "freezeTotalMs", "gapMaxMs"):
            result[key] = figures.get(key)
        stats = result.get("senderStats") or {}
        if stats.get("bytesSent"):
            result["senderFecPercent"] = 100 * stats.get("fecBytesSent", 0) / (
                stats["bytesSent"] - stats.get("fecBytesSent", 0) - stats.get("bytesRetransmitted", 0))
        return result

    print(f"fec: {SIZE[0]}x{SIZE[1]} testsrc2, {FRAMES} frames at {KBPS} kbit/s, loss "
          + ", ".join(map(loss_label, LOSSES)) + ", RTT " + ", ".join(f"{rtt:g}" for rtt in rtts) + " ms", file=sys.stderr)
    runs, unsupported = run_matrix(rows, conditions(rtts, LOSSES), args.rounds, run_one)
    add_intact(runs, rows)
    return {"clip": f"{SIZE[0]}x{SIZE[1]} testsrc2 {FRAMES} frames", "kbps": KBPS, "losses": list(LOSSES),
            "rttsMs": list(rtts), "jitterBufferMs": JITTER_BUFFER_LATENCY_MS, "redPayloadType": red,
            "ulpfecPayloadType": ulpfec, "rows": row_descriptions(rows, transport_cc), "unsupported": unsupported,
            "runs": {f"{name} @ {condition_label(condition)}": results for (name, condition), results in runs.items()},
            "medians": {f"{name} @ {condition_label(condition)}": summarize(results)
                        for (name, condition), results in runs.items() if results},
            "ratios": {f"{candidate} / {baseline} at {condition_label(condition)}": ratios(runs, condition, candidate, baseline)
                       for candidate, baseline in PAIRS for condition in conditions(rtts, LOSSES)
                       if condition[1] > 0 and runs.get((candidate, condition)) and runs.get((baseline, condition))}}


def summarize(results):
    keys = ["intactPercent", "intactFrames", "decodedFrames", "freezes", "freezeTotalMs", "gapMaxMs", "fecPercent",
            "senderFecPercent", "retransmittedPercent", "fecRecovered", "fecUnrecovered", "originalsLost",
            "originalsRepaired", "keyframesReceived", "frameDelayP95Ms", "senderCpuSeconds"]
    summary = {key: median_field(results, key) for key in keys}
    summary["rounds"] = len(results)
    summary["failedRounds"] = sum(1 for result in results if result.get("failure"))
    return summary


def ratios(runs, condition, candidate, baseline):
    """Per round, camrtp with FEC against camrtp with NACK alone (same round, same seed): the
    freeze time and the frames not intact, each as with / without; the median over the rounds."""
    pairs = list(zip(runs.get((candidate, condition), []), runs.get((baseline, condition), [])))

    def median_ratio(value):
        values = [ratio(value(a), value(b)) for a, b in pairs if value(a) is not None and value(b) is not None]
        values = [v for v in values if v == v]
        return statistics.median(values) if values else None

    return {"freezeTime": median_ratio(lambda result: result.get("freezeTotalMs")),
            "brokenFrames": median_ratio(lambda result: FRAMES - result["intactFrames"] if "intactFrames" in result else None)}


def print_fec(report, rounds):
    rtts = ", ".join(f"{rtt:g}" for rtt in report["rttsMs"])
    print(f"\n== fec: {report['clip']} at {report['kbps']} kbit/s in real time, random loss on the forward path, "
          f"RTT {rtts} ms (half each way), GStreamer receiver with RED + ULPFEC (rtpreddec, rtpulpfecdec) and NACK "
          f"on RTX, jitter buffer {report['jitterBufferMs']} ms; medians of {rounds} rounds ==")
    headers = ["sender", "RTT ms", "loss", "intact %", "decoded", "freezes", "freeze ms", "longest gap ms", "FEC %",
               "FEC % sent", "retx %", "rebuilt", "not rebuilt", "lost", "repaired", "keyframes", "CPU s"]
    rows = condition_rows(report, len(headers), lambda value: [
        cell(value["intactPercent"]), cell(value["decodedFrames"], 0), cell(value["freezes"], 0),
        cell(value["freezeTotalMs"], 0), cell(value["gapMaxMs"], 0), cell(value["fecPercent"]),
        cell(value["senderFecPercent"]), cell(value["retransmittedPercent"]), cell(value["fecRecovered"], 0),
        cell(value["fecUnrecovered"], 0), cell(value["originalsLost"], 0), cell(value["originalsRepaired"], 0),
        cell(value["keyframesReceived"], 0), cell(value["senderCpuSeconds"], 2)])
    print(table(headers, rows))
    for label, value in report["ratios"].items():
        print(f"{label}: freeze time x{cell(value['freezeTime'], 2)}, "
              f"frames not intact x{cell(value['brokenFrames'], 2)} (median of the per-round ratios)")
    for name, reason in report["unsupported"].items():
        print(f"n/s = not supported by this build: {name}: {reason}")
    print("FEC %: FEC bytes against media bytes as they reached the receiver (both lose the same share); "
          "FEC % sent: camrtp's own count (fecBytesSent against its media bytes); rebuilt / not rebuilt: "
          "rtpulpfecdec's recovered and unrecovered; lost counts media and FEC packets (the tap cannot tell a lost one "
          "apart); freezes: gaps over 200 ms between decoded frames")
    print("senders (receiver: gst_fec_receiver.py, RED pt "
          f"{report['redPayloadType']}, ULPFEC pt {report['ulpfecPayloadType']}, NACK, RTX):")
    for row in report["rows"]:
        if row["name"] not in report["unsupported"]:
            print(f"  {row['name']}: {row['command']}")
