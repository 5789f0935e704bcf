"""compare.py congestion: every sender starts at 2500 kbit/s into a bottleneck with a 400 ms
drop-tail queue and 20 ms each way: 800 kbit/s throughout ("bottleneck"), and 2000 -> 600 ->
2000 kbit/s every 10 s ("step"). Same receiver as the feedback case."""

import os
import statistics
import sys

from .bwe_trace import read_trace
from .closed_loop import median_field, prepare_case, row_descriptions, run_matrix
from .common import cell, table
from .link_analysis import LinkAnalysis
from .receivers import JITTER_BUFFER_LATENCY_MS
from .relay import LinkProfile
from .session import run_session

SIZE = (640, 360)
CLIP_SECONDS = 30
FRAMES = 30 * CLIP_SECONDS
START_KBPS = 2500
QUEUE_MS = 400
ONE_WAY_DELAY_MS = 20
SETTLE_S = 10           # "after 10 s": the estimate has had time to find the capacity
AFTER_DROP_S = 3        # the window after each fall in capacity
INTACT_MARGIN_DB = 2.0
INTACT_WINDOW_FRAMES = 30
CASES = {
    "bottleneck": LinkProfile(rate_kbps=800, queue_ms=QUEUE_MS, one_way_delay_ms=ONE_WAY_DELAY_MS),
    "step": LinkProfile(schedule=((0, 2000), (10, 600), (20, 2000)), queue_ms=QUEUE_MS,
                        one_way_delay_ms=ONE_WAY_DELAY_MS),
}
CASE_TITLES = {"bottleneck": "800 kbit/s", "step": "2000 -> 600 -> 2000 kbit/s every 10 s"}
# camrtp rows: name, arguments the build must take, and an option whose absence alone brings the
# row in. "camrtp" is the build as it is, with whichever optional arguments below it takes.
CAMRTP_VARIANTS = [
    ("camrtp", [], None),
    ("camrtp pacing off", ["--pacing", "off"], None),
]
# Used on every camrtp row when the build takes them.
CAMRTP_OPTIONAL = [["--retransmit", "rtx"], ["--min-bitrate", "100"], ["--max-bitrate", str(START_KBPS)],
                   ["--trace-bwe", "{trace}"], ["--local-port", "{local_port}"]]


def capacity_drops(profile):
    """Times at which the capacity falls."""
    points = list(profile.schedule)
    return [t for (t, kbps), (_, before) in zip(points[1:], points) if kbps < before]


def locally_intact(psnr_by_index):
    """Decoded frames whose PSNR is at most 2 dB below the median of the decoded frames within
    1 s around them: a broken picture stands out, a lower rate does not (the rate is meant to
    change here, so there is no loss-free run to compare with)."""
    decoded = [(index, value) for index, value in enumerate(psnr_by_index) if value is not None]
    intact = 0
    for index, value in decoded:
        neighbours = [other for position, other in decoded if abs(position - index) <= INTACT_WINDOW_FRAMES]
        if value >= statistics.median(neighbours) - INTACT_MARGIN_DB:
            intact += 1
    return intact


def bench_congestion(args, workdir):
    clip, source, rows, transport_cc = prepare_case(args, workdir, SIZE, FRAMES, START_KBPS, CAMRTP_VARIANTS,
                                                    CAMRTP_OPTIONAL)

    def run_one(row, case, round_index):
        profile = CASES[case]
        outcome = run_session(row, profile, clip, source, START_KBPS, workdir,
                              f"congestion-{row.name.replace(' ', '_')}-{case}-{round_index}",
                              seed=round_index + 1, clip_seconds=CLIP_SECONDS,
                              transport_cc_extension_id=row.transport_cc_extension_id or transport_cc,
                              keep_files=args.keep)
        link = LinkAnalysis(outcome.relay_packets, profile)
        end = link.last_arrival_s
        decoded = sum(1 for value in outcome.psnr_by_index if value is not None)
        result = {"failure": outcome.failure,
                  "queueDelayP95After10sMs": link.queue_delay_p95_ms(SETTLE_S),
                  "queueDropPercent": link.queue_drop_percent(),
                  "queueDropAfter10sPercent": link.queue_drop_percent(SETTLE_S),
                  "throughputAfter10sKbps": link.throughput_kbps(SETTLE_S, end),
                  "utilisationAfter10sPercent": link.utilisation_percent(SETTLE_S, end),
                  "decodedPercent": 100 * decoded / len(source),
                  "intactPercent": 100 * locally_intact(outcome.psnr_by_index) / len(source),
                  "psnrMedianDb": statistics.median(v for v in outcome.psnr_by_index if v is not None) if decoded else None,
                  "relayLatenessP95Ms": (outcome.relay_stats["forward"]["departure_lateness_ms"] or {}).get("p95"),
                  "senderCpuSeconds": outcome.sender.get("cpuSeconds"),
                  "perSecond": link.per_second()}
        for drop in capacity_drops(profile):
            result[f"queueDelayP95After{drop}sDropMs"] = link.queue_delay_p95_ms(drop, drop + AFTER_DROP_S)
        points = [t for t, _ in profile.schedule]
        for start, stop in zip(points, points[1:] + [end]):
            result[f"utilisation{start}sPercent"] = link.utilisation_percent(start, min(stop, end))
        result.update({key: outcome.stream[key] for key in ("frameDelayP50Ms", "frameDelayP95Ms", "retransmittedKB",
                                                             "originalsLost", "originalsRepaired", "keyframesReceived")})
        trace = outcome.sender.get("bweTracePath")
        if trace:
            result["bweTrace"] = read_trace(trace, outcome.relay_origin_ns)
        if "senderStats" in outcome.sender:
            result["senderStats"] = outcome.sender["senderStats"]
        return result

    print(f"congestion: {SIZE[0]}x{SIZE[1]} testsrc2, {CLIP_SECONDS} s from {START_KBPS} kbit/s; "
          + "; ".join(f"{case}: {CASE_TITLES[case]}" for case in CASES), file=sys.stderr)
    runs, unsupported = run_matrix(rows, list(CASES), args.rounds, run_one)
    plots = write_plots(runs, rows, args.plot_dir)
    return {"clip": f"{SIZE[0]}x{SIZE[1]} testsrc2 {FRAMES} frames", "startKbps": START_KBPS, "queueMs": QUEUE_MS,
            "oneWayDelayMs": ONE_WAY_DELAY_MS, "jitterBufferMs": JITTER_BUFFER_LATENCY_MS, "cases": list(CASES),
            "rows": row_descriptions(rows, transport_cc),
            "unsupported": unsupported, "plots": plots,
            "runs": {f"{name} @ {case}": results for (name, case), results in runs.items()},
            "medians": {f"{name} @ {case}": summarize(results) for (name, case), results in runs.items() if results}}


def summarize(results):
    keys = sorted({key for result in results for key, value in result.items()
                   if isinstance(value, (int, float)) and not isinstance(value, bool)})
    summary = {key: median_field(results, key) for key in keys}
    summary["rounds"] = len(results)
    summary["failedRounds"] = sum(1 for result in results if result.get("failure"))
    return summary


def write_plots(runs, rows, plot_dir):
    """One PNG per case from the first round of every sender."""
    try:
        from .plots import plot_case, plot_trace
    except ImportError as error:
        print(f"  no plots: {error}", file=sys.stderr)
        return {}
    os.makedirs(plot_dir, exist_ok=True)
    paths = {}
    for case in CASES:
        per_sender = {row.name: runs[(row.name, case)][0]["perSecond"] for row in rows if runs.get((row.name, case))}
        traces = {row.name: runs[(row.name, case)][0].get("bweTrace") for row in rows if runs.get((row.name, case))}
        if not per_sender:
            continue
        path = os.path.join(plot_dir, f"congestion-{case}.png")
        plot_case(path, f"{case}: {CASE_TITLES[case]}, {QUEUE_MS} ms drop-tail queue, start {START_KBPS} kbit/s "
                  f"(first round)", per_sender, {name: trace for name, trace in traces.items() if trace})
        paths[case] = path
        for name, trace in traces.items():
            if trace:
                path = os.path.join(plot_dir, f"congestion-{case}-{name.replace(' ', '_')}-bwe.png")
                plot_trace(path, f"{name}, {case}: {CASE_TITLES[case]} (first round): --trace-bwe", per_sender[name], trace)
                paths[f"{case} {name} estimator"] = path
    return paths


def print_congestion(report, rounds):
    print(f"\n== congestion: {report['clip']} in real time, every sender starting at {report['startKbps']} kbit/s, "
          f"{report['queueMs']} ms drop-tail queue, {report['oneWayDelayMs']} ms each way, same receiver as feedback; "
          f"medians of {rounds} rounds ==")
    for case in report["cases"]:
        drop_keys = sorted({key for value in report["medians"].values() for key in value
                            if key.startswith("queueDelayP95After") and key.endswith("DropMs")})
        utilisation_keys = sorted({key for value in report["medians"].values() for key in value
                                   if key.startswith("utilisation") and key.endswith("sPercent")
                                   and not key.startswith("utilisationAfter")}, key=lambda k: float(k[11:-8]))
        headers = ["sender", "queue p95 ms after 10 s"]
        if case == "step":
            headers += [f"queue p95 ms {key[18:-7]}-{int(key[18:-7]) + AFTER_DROP_S} s" for key in drop_keys]
            headers += [f"util % from {key[11:-8]} s" for key in utilisation_keys]
        headers += ["queue drops % after 10 s", "queue drops % (all)", "kbit/s after 10 s", "util % after 10 s", "decoded %", "intact %",
                    "PSNR dB", "delay p95 ms", "retx kB", "CPU s", "relay late p95 ms"]
        rows = []
        for row in report["rows"]:
            if row["name"] in report["unsupported"]:
                rows.append([row["name"]] + ["n/s"] * (len(headers) - 1))
                continue
            value = report["medians"].get(f"{row['name']} @ {case}")
            if value is None:
                continue
            cells = [row["name"] + (f" ({value['failedRounds']} failed)" if value["failedRounds"] else ""),
                     cell(value.get("queueDelayP95After10sMs"))]
            if case == "step":
                cells += [cell(value.get(key)) for key in drop_keys]
                cells += [cell(value.get(key), 0) for key in utilisation_keys]
            cells += [cell(value.get("queueDropAfter10sPercent")), cell(value.get("queueDropPercent")),
                      cell(value.get("throughputAfter10sKbps"), 0),
                      cell(value.get("utilisationAfter10sPercent"), 0), cell(value.get("decodedPercent")),
                      cell(value.get("intactPercent")), cell(value.get("psnrMedianDb")),
                      cell(value.get("frameDelayP95Ms")), cell(value.get("retransmittedKB")),
                      cell(value.get("senderCpuSeconds"), 2), cell(value.get("relayLatenessP95Ms"))]
            rows.append(cells)
        print(f"\n{case}: {CASE_TITLES[case]}")
        print(table(headers, rows))
    for name, reason in report["unsupported"].items():
        print(f"n/s = not supported by this build: {name}: {reason}")
    print("senders (receiver):")
    for row in report["rows"]:
        if row["name"] not in report["unsupported"]:
            print(f"  {row['name']} ({row['receiver']}): {row['command']}")
    for case, path in report["plots"].items():
        print(f"plot ({case}): {path}")
