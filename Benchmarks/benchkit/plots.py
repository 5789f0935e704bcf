"""PNG plots of the congestion cases (matplotlib, imported only here)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as pyplot  # noqa: E402  (after the backend is chosen)

from .bwe_trace import is_target  # noqa: E402


def draw_capacity(axes, rows):
    starts = [row[0] for row in rows]
    axes.step(starts + [starts[-1] + 1], [row[1] for row in rows] + [rows[-1][1]], where="post",
              color="black", linewidth=2, label="capacity")


def finish(figure, rates, delays, title, path):
    rates.set_ylabel("kbit/s")
    rates.set_title(title)
    rates.legend(fontsize="small", ncol=2)
    rates.grid(alpha=0.3)
    rates.set_ylim(bottom=0)
    delays.set_ylim(bottom=0)
    delays.set_xlabel("seconds since the relay's first packet")
    delays.legend(fontsize="small")
    delays.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    pyplot.close(figure)


def plot_case(path, title, per_sender, traces):
    """per_sender: {name: LinkAnalysis.per_second() rows}; traces: {name: read_trace() result}.
    Top: capacity, each sender's throughput (solid) and sending rate (dotted), camrtp's target
    (dashed). Bottom: queue delay p95 per second."""
    figure, (rates, delays) = pyplot.subplots(2, 1, figsize=(11, 7.5), sharex=True)
    for index, (name, rows) in enumerate(per_sender.items()):
        colour = f"C{index}"
        if index == 0 and rows:
            draw_capacity(rates, rows)
        centres = [row[0] + 0.5 for row in rows]
        rates.plot(centres, [row[3] for row in rows], color=colour, marker="o", markersize=3, label=f"{name} throughput")
        rates.plot(centres, [row[2] for row in rows], color=colour, linestyle=":", label=f"{name} sending")
        delays.plot(centres, [row[4] if row[4] is not None else float("nan") for row in rows], color=colour,
                    marker="o", markersize=3, label=name)
        trace = traces.get(name)
        for column, values in (trace or {}).get("rates", {}).items():
            if is_target(column):
                rates.plot(trace["time_s"], values, color=colour, linestyle="--", linewidth=1, label=f"{name} {column}")
    delays.set_ylabel("queue delay p95 per second, ms")
    finish(figure, rates, delays, title, path)


def plot_trace(path, title, rows, trace):
    """One camrtp run: every rate column of its estimator trace against the capacity and what
    got through; below, the trace's durations (threshold, RTT) and the queue delay."""
    figure, (rates, delays) = pyplot.subplots(2, 1, figsize=(11, 7.5), sharex=True)
    draw_capacity(rates, rows)
    centres = [row[0] + 0.5 for row in rows]
    rates.plot(centres, [row[3] for row in rows], color="black", linestyle=":", marker="o", markersize=3,
               label="throughput (relay)")
    for column, values in trace["rates"].items():
        rates.plot(trace["time_s"], values, linewidth=2 if is_target(column) else 1, label=column)
    # The pacing rate runs at a multiple of the target: scale to the target and the capacity.
    shown = [row[1] or 0 for row in rows] + [row[3] or 0 for row in rows] + [
        value for column, values in trace["rates"].items() if is_target(column) for value in values if value == value]
    if shown:
        rates.set_ylim(0, 1.3 * max(shown))
    delays.plot(centres, [row[4] if row[4] is not None else float("nan") for row in rows], color="black",
                marker="o", markersize=3, label="queue delay p95 (relay)")
    for column, values in trace["durations"].items():
        delays.plot(trace["time_s"], values, linewidth=1, label=column)
    delays.set_ylabel("ms")
    finish(figure, rates, delays, title, path)
