"""compare.py overload: an encoder that cannot keep up must drop frames, not queue them.
camrtp sends 1080p60 test pattern at cpu-used -1 on one thread (far slower than 60 fps) to a
UDP sink for 5 s. A frame waits in the one-slot mailbox at most one frame interval (a newer one
would replace it) behind one encode in progress, then is encoded, so its capture-to-wire latency
is bounded by 2 frame intervals + the encode time; the bound adds the encode p99 and 5 ms of
scheduling room. Standard library only."""

import json
import os
import sys

from .common import UDPSinks, cell, goal, measure, median_of, table

SOURCE = "testsrc:1920x1080@60"
FPS = 60
SECONDS = 5
KBPS = 4000
SCHEDULING_ROOM_MS = 5


def bench_overload(args, workdir):
    runs = []
    with UDPSinks() as sinks:
        for round_index in range(args.rounds):
            stats_path = os.path.join(workdir, "camrtp-overload.json")
            cmd = [args.camrtp, "send", "--source", SOURCE, "--cpu-used", "-1", "--threads", "1",
                   "--bitrate", str(KBPS), "--duration", str(SECONDS), "--to", f"127.0.0.1:{sinks.port}",
                   "--stats-json", stats_path]
            result = measure(cmd, workdir, "camrtp-overload")
            with open(stats_path) as f:
                stats = json.load(f)
            dropped = stats.get("framesDropped", {})
            interval_ms = 1000 / FPS
            bound = 2 * interval_ms + stats["encodeMs"]["p99"] + SCHEDULING_ROOM_MS
            result.update({"framesCaptured": stats["framesCaptured"], "framesEncoded": stats["framesEncoded"],
                           "droppedLate": dropped.get("late", 0), "droppedTooOld": dropped.get("tooOld", 0),
                           "droppedOther": sum(count for reason, count in dropped.items() if reason not in ("late", "tooOld")),
                           "encodeP50Ms": stats["encodeMs"]["p50"], "encodeP99Ms": stats["encodeMs"]["p99"],
                           "latencyP50Ms": stats["latencyMs"]["p50"], "latencyP99Ms": stats["latencyMs"]["p99"],
                           "latencyMaxMs": stats["latencyMs"]["max"], "boundMs": bound,
                           "p99WithinBound": stats["latencyMs"]["p99"] <= bound,
                           "maxWithinBound": stats["latencyMs"]["max"] <= bound})
            runs.append(result)
            print(f"  round {round_index + 1}/{args.rounds}: camrtp overload done", file=sys.stderr)
    return {"command": " ".join(["camrtp send --source", SOURCE, "--cpu-used -1 --threads 1 --bitrate", str(KBPS),
                                 "--duration", str(SECONDS), "--to 127.0.0.1:PORT --stats-json FILE"]),
            "runs": runs, "medians": median_of(runs),
            "roundsP99WithinBound": sum(run["p99WithinBound"] for run in runs),
            "roundsMaxWithinBound": sum(run["maxWithinBound"] for run in runs)}


def print_overload(report, rounds):
    print(f"\n== overload: {report['command']}; every round, medians below; bound = 2 x {1000 / FPS:.2f} ms "
          f"+ encode p99 + {SCHEDULING_ROOM_MS} ms ==")
    rows = []
    for index, run in enumerate(report["runs"] + [report["medians"]]):
        label = f"round {index + 1}" if index < len(report["runs"]) else "median"
        rows.append([label, f"{run['framesEncoded']:.0f}/{run['framesCaptured']:.0f}", f"{run['droppedLate']:.0f}",
                     f"{run['droppedTooOld']:.0f}", f"{run['droppedOther']:.0f}", cell(run["encodeP50Ms"], 2),
                     cell(run["encodeP99Ms"], 2), cell(run["latencyP50Ms"], 2), cell(run["latencyP99Ms"], 2),
                     cell(run["latencyMaxMs"], 2), cell(run["boundMs"], 2), cell(run["cpuSeconds"], 2)])
    print(table(["", "encoded/captured", "dropped late", "too old", "other drops", "enc p50 ms", "enc p99 ms",
                 "lat p50 ms", "lat p99 ms", "lat max ms", "bound ms", "CPU s"], rows))
    total = len(report["runs"])
    print(f"latency p99 <= bound in {report['roundsP99WithinBound']}/{total} rounds: "
          f"{goal(report['roundsP99WithinBound'] == total)}; "
          f"latency max <= bound in {report['roundsMaxWithinBound']}/{total} rounds")
