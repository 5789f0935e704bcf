"""compare.py feedback: loss repair. One clip sent in real time through 0, 2 and 5 % random loss
with 20 ms each way (or the round-trip times of --rtt, each split evenly between the two ways;
the loss-free runs at the first only), by camrtp (as built, and with each retransmission mode), the GStreamer
anchor (NACK -> RTX, PLI -> keyframe) and ffmpeg (open loop), all to the same GStreamer receiver
(NACK, PLI; its RTX variant for RTX senders)."""

import statistics
import sys

from .closed_loop import median_field, prepare_case, row_descriptions, run_matrix
from .common import cell, table
from . import receivers
from .receivers import JITTER_BUFFER_LATENCY_MS
from .relay import LinkProfile
from .session import run_session

SIZE = (640, 360)
FRAMES = 300
CLIP_SECONDS = 10
KBPS = 1000
LOSSES = (0.0, 0.02, 0.05)
DEFAULT_RTTS_MS = (40,)
INTACT_MARGIN_DB = 2.0
# camrtp rows: name, arguments the build must take, and an option whose absence alone brings the
# row in. "camrtp" is a build without retransmission: the "before" row.
CAMRTP_VARIANTS = [
    ("camrtp", [], "--retransmit"),
    ("camrtp off", ["--retransmit", "off"], None),
    ("camrtp resend", ["--retransmit", "resend"], None),
    ("camrtp rtx", ["--retransmit", "rtx"], None),
]
# Used on every camrtp row when the build takes them.
CAMRTP_OPTIONAL = [["--local-port", "{local_port}"]]


def loss_label(loss):
    return f"{loss * 100:g} %"


def conditions(rtts_ms, losses):
    """(RTT ms, loss) pairs: every loss at every RTT, the loss-free runs (the reference for
    intact frames, where the RTT changes nothing) at the first RTT only."""
    return [(rtts_ms[0], 0.0)] + [(rtt, loss) for rtt in rtts_ms for loss in losses if loss]


def condition_label(condition):
    rtt, loss = condition
    return f"{loss_label(loss)} @ RTT {rtt:g} ms"


def bench_feedback(args, workdir):
    clip, source, rows, transport_cc = prepare_case(args, workdir, SIZE, FRAMES, KBPS, CAMRTP_VARIANTS,
                                                    CAMRTP_OPTIONAL)
    rtts = args.rtt or DEFAULT_RTTS_MS

    def run_one(row, condition, round_index):
        rtt, loss = condition
        outcome = run_session(row, LinkProfile(loss=loss, one_way_delay_ms=rtt / 2), clip, source, KBPS,
                              workdir, f"feedback-{row.name.replace(' ', '_')}-{loss}-{rtt:g}-{round_index}",
                              seed=round_index + 1, clip_seconds=CLIP_SECONDS,
                              transport_cc_extension_id=row.transport_cc_extension_id or transport_cc,
                              keep_files=args.keep)
        return session_result(outcome)

    print(f"feedback: {SIZE[0]}x{SIZE[1]} testsrc2, {FRAMES} frames at {KBPS} kbit/s, loss "
          + ", ".join(map(loss_label, LOSSES)) + ", RTT " + ", ".join(f"{rtt:g}" for rtt in rtts) + " ms", file=sys.stderr)
    runs, unsupported = run_matrix(rows, conditions(rtts, LOSSES), args.rounds, run_one)
    add_intact(runs, rows)
    return {"clip": f"{SIZE[0]}x{SIZE[1]} testsrc2 {FRAMES} frames", "kbps": KBPS, "losses": list(LOSSES),
            "rttsMs": list(rtts), "jitterBufferMs": JITTER_BUFFER_LATENCY_MS,
            "receiverRtcpBandwidth": receivers.RTCP_SESSION_BANDWIDTH,
            "rows": row_descriptions(rows, transport_cc),
            "unsupported": unsupported,
            "runs": {f"{name} @ {condition_label(condition)}": results for (name, condition), results in runs.items()},
            "medians": {f"{name} @ {condition_label(condition)}": summarize(results)
                        for (name, condition), results in runs.items() if results}}


def session_result(outcome):
    """What the tables need of one session: the receiver's frames, the tap's analysis, the
    relay's drops and the sender's own figures."""
    forward = outcome.relay_stats["forward"]
    result = {"failure": outcome.failure, "decodedFrames": outcome.decoded_frames,
              "unmatchedFrames": outcome.unmatched_frames, "psnrByIndex": outcome.psnr_by_index,
              "relayForwardPackets": forward["packets"]["in"], "relayLost": forward["packets"]["dropped_loss"],
              "senderCpuSeconds": outcome.sender.get("cpuSeconds"),
              "senderPeakRssMB": outcome.sender.get("peakRssMB")}
    result.update(outcome.stream)
    result.update({key: value for key, value in outcome.sender.items() if key.startswith("sender.")})
    if "senderStats" in outcome.sender:
        result["senderStats"] = outcome.sender["senderStats"]
    return result


def reference_psnr(results):
    """Per source frame, the median PSNR over the loss-free runs that decoded it."""
    lists = [result["psnrByIndex"] for result in results]
    if not lists:
        return None
    reference = []
    for values in zip(*lists):
        present = [value for value in values if value is not None]
        reference.append(statistics.median(present) if present else None)
    return reference


def add_intact(runs, rows):
    """A frame is intact when it was decoded, matched to its source frame, and its PSNR is at
    most 2 dB below the same sender's loss-free runs (their median for that frame, or over all
    frames when no loss-free run decoded that one). Conditions are (RTT, loss) pairs."""
    for row in rows:
        reference = reference_psnr([result for (name, (_, loss)), results in runs.items()
                                    if name == row.name and loss == 0 for result in results])
        if reference is None:
            continue
        present = [value for value in reference if value is not None]
        fallback = statistics.median(present) if present else None
        for condition in {condition for name, condition in runs if name == row.name}:
            for result in runs[(row.name, condition)]:
                intact = 0
                for value, expected in zip(result["psnrByIndex"], reference):
                    expected = expected if expected is not None else fallback
                    if value is not None and expected is not None and value >= expected - INTACT_MARGIN_DB:
                        intact += 1
                result["intactFrames"] = intact
                result["intactPercent"] = 100 * intact / len(reference)
                decoded = [value for value in result["psnrByIndex"] if value is not None]
                result["psnrMedianDb"] = statistics.median(decoded) if decoded else None


def summarize(results):
    keys = ["intactPercent", "intactFrames", "decodedFrames", "psnrMedianDb", "originalsLost", "originalsRepaired",
            "retransmittedKB", "retransmittedPercent", "mediaKB", "frameDelayP50Ms", "frameDelayP95Ms",
            "frameDelayMaxMs", "keyframesReceived", "framesComplete", "senderCpuSeconds", "senderPeakRssMB",
            "relayLost"]
    summary = {key: median_field(results, key) for key in keys}
    summary["rounds"] = len(results)
    summary["failedRounds"] = sum(1 for result in results if result.get("failure"))
    return summary


def condition_rows(report, width, cells):
    """A table's rows, `width` cells each: per sender, "n/s" when this build cannot run it, else
    per (RTT, loss) its name (and failed rounds), the RTT, the loss and `cells(medians)`."""
    rows = []
    for row in report["rows"]:
        if row["name"] in report["unsupported"]:
            rows.append([row["name"], "all", "all"] + ["n/s"] * (width - 3))
            continue
        for condition in conditions(report["rttsMs"], report["losses"]):
            value = report["medians"].get(f"{row['name']} @ {condition_label(condition)}")
            if value is None:
                continue
            name = row["name"] + (f" ({value['failedRounds']} failed)" if value["failedRounds"] else "")
            rows.append([name, f"{condition[0]:g}", loss_label(condition[1])] + cells(value))
    return rows


def print_feedback(report, rounds):
    rtts = ", ".join(f"{rtt:g}" for rtt in report["rttsMs"])
    print(f"\n== feedback: {report['clip']} at {report['kbps']} kbit/s in real time, random loss on the forward "
          f"path, RTT {rtts} ms (half each way), GStreamer receiver with NACK + PLI, jitter buffer "
          f"{report['jitterBufferMs']} ms, RTCP for a {report['receiverRtcpBandwidth'] / 1000:g} kbit/s session; "
          f"medians of {rounds} rounds ==")
    headers = ["sender", "RTT ms", "loss", "intact %", "decoded", "PSNR dB", "lost", "repaired", "retx kB", "retx %",
               "delay p50 ms", "delay p95 ms", "keyframes", "CPU s"]
    rows = condition_rows(report, len(headers), lambda value: [
        cell(value["intactPercent"]), cell(value["decodedFrames"], 0), cell(value["psnrMedianDb"]),
        cell(value["originalsLost"], 0), cell(value["originalsRepaired"], 0), cell(value["retransmittedKB"]),
        cell(value["retransmittedPercent"]), cell(value["frameDelayP50Ms"]), cell(value["frameDelayP95Ms"]),
        cell(value["keyframesReceived"], 0), cell(value["senderCpuSeconds"], 2)])
    print(table(headers, rows))
    for name, reason in report["unsupported"].items():
        print(f"n/s = not supported by this build: {name}: {reason}")
    print("senders (receiver):")
    for row in report["rows"]:
        if row["name"] not in report["unsupported"]:
            print(f"  {row['name']} ({row['receiver']}): {row['command']}")
