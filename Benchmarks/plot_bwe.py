#!/usr/bin/python3
"""Plots a congestion-control run: camrtp's target against the link's capacity, and the queue
it built, over time.

  plot_bwe.py TRACE.csv [RELAY_STATS.json] [--packet-log PACKETS.csv] [--schedule S:KBPS,...] -o out.png

TRACE.csv is camrtp's `--trace-bwe` output (one line per estimator update, header from
`BWETraceRecord.csvHeader`). RELAY_STATS.json is what Tests/Tools/impairment_relay.py wrote to
`--stats-json`: its forward per-second bins give the configured rate (the capacity), the
throughput that left the bottleneck, the queueing delay p95 and the drops. Without it,
`--schedule` (the relay's syntax: 0:2000,10:600,20:2000) or `--capacity KBPS` draws the
capacity. The relay's `--packet-log` adds every packet's queueing delay and each drop.

With --window FROM:TO (seconds, repeatable) it also prints, per window, what the bottleneck did:
the queueing delay p95 over the packets (transit less the smallest transit, so the relay's own
lateness counts as queueing) and the worst per-second p95 of the relay's bins, the share of
arrivals the queue dropped, and throughput against capacity (whole seconds of the bins).

Panels:
  1. kbit/s: target, delay-based and loss-based estimates, acknowledged rate, probe results;
     capacity and relay throughput when known.
  2. ms: queueing delay at the bottleneck (per-second p95, per packet with the log) and drops.
  3. the delay detector: modified trend against its threshold, overuse marked.

Time is seconds since the relay's first packet when relay data is given, else since the
trace's first record. The relay counts from the first packet it saw in either direction; the
trace's `start` record is camrtp's first packet, so with the packet log the two are aligned on
the first forward packet, and without it they are taken to coincide (they do when the receiver
sends nothing before the stream starts).

Needs matplotlib (Debian's python3-matplotlib, hence /usr/bin/python3).
"""

import argparse
import csv
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def read_trace(path):
    with open(path, newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    if not rows:
        raise SystemExit(f"plot_bwe: {path}: no records after the header")
    if "target_bps" not in rows[0]:
        raise SystemExit(f"plot_bwe: {path}: not a --trace-bwe CSV (no target_bps column)")
    return rows


def number(text):
    return float(text) if text not in (None, "") else None


def parse_schedule(text):
    points = []
    for item in text.split(","):
        seconds, kbps = item.split(":")
        points.append((float(seconds), float(kbps)))
    return points


def read_packet_log(path):
    """Forward packets as (arrival s, queue-path delay ms or None when dropped, reason)."""
    packets = []
    with open(path, newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            if row["direction"] != "forward":
                continue
            arrival = int(row["arrival_ns"])
            departure = int(row["departure_ns"]) if row["departure_ns"] else None
            transit = (departure - arrival) / 1e6 if departure is not None else None
            packets.append((arrival / 1e9, transit, row["reason"]))
    return packets


def step_series(points, end_s):
    """(times, values) of a staircase through `points` [(s, value)], held until `end_s`."""
    times, values = [], []
    for index, (start, value) in enumerate(points):
        stop = points[index + 1][0] if index + 1 < len(points) else end_s
        times += [start, stop]
        values += [value, value]
    return times, values


def nearest_rank(ordered, fraction):
    return ordered[max(0, math.ceil(len(ordered) * fraction) - 1)] if ordered else None


def window_summary(start_s, end_s, stats, packets):
    """One line: queueing delay p95, drops and utilisation over [start_s, end_s)."""
    base = min((transit for _, transit, _ in packets if transit is not None), default=0.0)
    inside = [(transit, reason) for t, transit, reason in packets if start_s <= t < end_s]
    delays = sorted(transit - base for transit, _ in inside if transit is not None)
    drops = sum(1 for _, reason in inside if reason == "queue")
    bins = [b for b in stats["forward"]["bins"][:-1] if b["start_s"] >= start_s and b["start_s"] + 1 <= end_s]
    worst = max((b.get("queue_delay_p95_ms") or 0.0 for b in bins), default=None)
    throughput = sum(b["throughput_kbps"] for b in bins) / max(len(bins), 1)
    capacity = sum(b.get("rate_kbps") or 0.0 for b in bins) / max(len(bins), 1)
    p95 = nearest_rank(delays, 0.95)

    def ms(value):
        return "-" if value is None else f"{value:.0f}"
    return (f"[{start_s:g}, {end_s:g}) s: queueing delay p95 {ms(p95)} ms (worst second {ms(worst)} ms), "
            f"queue drops {drops}/{len(inside)} = {100 * drops / max(len(inside), 1):.2f} %, "
            f"throughput {throughput:.0f} of {capacity:.0f} kbit/s = {100 * throughput / capacity if capacity else 0:.0f} %")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="plot_bwe.py", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", metavar="TRACE.csv")
    parser.add_argument("relay_stats", metavar="RELAY_STATS.json", nargs="?")
    parser.add_argument("--packet-log", metavar="PACKETS.csv", help="the relay's per-packet log")
    parser.add_argument("--schedule", metavar="S:KBPS,...", help="the capacity over time, without relay stats")
    parser.add_argument("--capacity", metavar="KBPS", type=float, help="a constant capacity, without relay stats")
    parser.add_argument("--title", help="the figure's title (default: the trace's name)")
    parser.add_argument("--window", metavar="FROM:TO", action="append", default=[],
                        help="print the bottleneck's figures over [FROM, TO) seconds (needs the relay stats and packet log)")
    parser.add_argument("-o", "--output", metavar="out.png", required=True)
    args = parser.parse_args(argv)

    rows = read_trace(args.trace)
    first_ms = float(rows[0]["time_ms"])
    packets = read_packet_log(args.packet_log) if args.packet_log else []
    # Seconds to add to trace time to get relay time.
    offset_s = packets[0][0] if packets else 0.0
    times = [(float(row["time_ms"]) - first_ms) / 1000 + offset_s for row in rows]

    def column(name, scale=1.0):
        return [value * scale if value is not None else None for value in (number(row[name]) for row in rows)]

    figure, (rates, delay, detector) = plt.subplots(
        3, 1, sharex=True, figsize=(11, 9), gridspec_kw={"height_ratios": [3, 2, 1.3]})
    figure.suptitle(args.title or args.trace)
    end_s = times[-1]

    stats = None
    if args.relay_stats:
        with open(args.relay_stats, encoding="utf-8") as file:
            stats = json.load(file)
        bins = stats["forward"]["bins"]
        end_s = max(end_s, len(bins))
        capacity = [(b["start_s"], b.get("rate_kbps")) for b in bins if b.get("rate_kbps") is not None]
        if capacity:
            rates.plot(*step_series(capacity, len(bins)), color="black", linewidth=2, label="capacity (relay)")
        rates.plot(*step_series([(b["start_s"], b["throughput_kbps"]) for b in bins], len(bins)),
                   color="grey", linewidth=1, label="throughput out of the bottleneck (1 s bins)")
        delays = [(b["start_s"], b.get("queue_delay_p95_ms") or 0.0) for b in bins]
        delay.plot(*step_series(delays, len(bins)), color="tab:red", linewidth=1.5, label="queue delay p95 (1 s bins)")
    elif args.schedule or args.capacity:
        points = parse_schedule(args.schedule) if args.schedule else [(0.0, args.capacity)]
        rates.plot(*step_series(points, end_s), color="black", linewidth=2, label="capacity")

    rates.plot(times, column("target_bps", 1e-3), color="tab:blue", linewidth=1.5, label="target")
    rates.plot(times, column("delay_based_bps", 1e-3), color="tab:orange", linewidth=0.8, label="delay-based")
    rates.plot(times, column("loss_based_bps", 1e-3), color="tab:green", linewidth=0.8, linestyle="--", label="loss-based")
    acked = [(t, v) for t, v in zip(times, column("acked_bps", 1e-3)) if v is not None]
    if acked:
        rates.plot(*zip(*acked), color="tab:purple", linewidth=0.8, label="acknowledged")
    probes = [(t, v) for t, v in zip(times, column("probe_bps", 1e-3)) if v is not None]
    if probes:
        rates.scatter(*zip(*probes), color="tab:red", marker="^", zorder=3, label="probe result")
    rates.set_ylabel("kbit/s")
    rates.set_ylim(bottom=0)
    rates.legend(loc="upper right", fontsize="small")
    rates.grid(alpha=0.3)

    if packets:
        sent = [(t, transit) for t, transit, reason in packets if transit is not None]
        base = min(transit for _, transit in sent) if sent else 0.0
        delay.scatter([t for t, _ in sent], [transit - base for _, transit in sent], s=1, color="tab:pink",
                      label="per packet (transit − min transit)")
        drops = [t for t, transit, reason in packets if transit is None and reason != "unsent_at_exit"]
        if drops:
            delay.scatter(drops, [0] * len(drops), marker="x", color="black", s=12, label=f"dropped ({len(drops)})")
    delay.set_ylabel("queue delay, ms")
    delay.set_ylim(bottom=0)
    delay.grid(alpha=0.3)
    if delay.get_legend_handles_labels()[0]:
        delay.legend(loc="upper right", fontsize="small")

    detector.plot(times, column("modified_trend"), color="tab:blue", linewidth=0.8, label="modified trend")
    threshold = column("threshold_ms")
    detector.plot(times, threshold, color="black", linewidth=0.8, label="± threshold")
    detector.plot(times, [-v if v is not None else None for v in threshold], color="black", linewidth=0.8)
    overuse = [t for t, row in zip(times, rows) if row["detector_state"] == "overusing"]
    if overuse:
        detector.scatter(overuse, [0] * len(overuse), marker="|", color="tab:red", label="overusing")
    detector.set_ylabel("ms")
    detector.set_xlabel("seconds" + (" since the relay's first packet" if stats or packets else ""))
    detector.legend(loc="upper right", fontsize="small")
    detector.grid(alpha=0.3)
    detector.set_xlim(0, end_s)

    for window in args.window:
        if not (stats and packets):
            raise SystemExit("plot_bwe: --window needs RELAY_STATS.json and --packet-log")
        start_s, end_s = (float(part) for part in window.split(":"))
        print(window_summary(start_s, end_s, stats, packets))

    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
