"""camrtp's --trace-bwe CSV: one line per estimator update. Columns are found by their header
names, so the trace may grow: the time is the first column whose name starts with "time" or
is "t" (unit from its suffix: _ns, _us, _ms, else seconds); every column whose name ends in
"bps" or contains "target" or "bitrate" is a rate (suffix _bps is bit/s, otherwise kbit/s);
other columns ending in _ms are durations (the delay detector's threshold, the RTT). Empty
cells are gaps."""

import csv
import math

TIME_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# Times larger than this are CLOCK_MONOTONIC readings, not seconds since the start of the run.
ABSOLUTE_TIME_S = 1000.0


def time_column(names):
    for name in names:
        lowered = name.strip().lower()
        if lowered.startswith("time") or lowered in ("t", "t_s", "t_ms", "t_us", "t_ns"):
            return name
    return None


def time_scale(name):
    suffix = name.strip().lower().rsplit("_", 1)[-1]
    return TIME_SCALE.get(suffix, 1.0)


def rate_columns(names):
    """{column: factor to kbit/s}."""
    rates = {}
    for name in names:
        lowered = name.strip().lower()
        if lowered.endswith("bps") or "target" in lowered or "bitrate" in lowered:
            is_bps = lowered.endswith("_bps") or lowered == "bps"
            rates[name] = 1e-3 if is_bps else 1.0
    return rates


def is_target(column):
    return "target" in column.lower()


def number(text, scale):
    try:
        value = float(text) * scale
    except (TypeError, ValueError):
        return math.nan
    return value


def read_trace(path, relay_origin_ns):
    """{"time_s": [...], "rates": {column: [kbit/s...]}, "durations": {column: [ms...]}} on the
    relay's clock (seconds from its first packet): absolute monotonic times are shifted by the
    relay's origin, relative ones are taken as counted from camrtp's first packet. None when the
    file has no time or no rate column."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        names = reader.fieldnames or []
        time_name = time_column(names)
        rates = rate_columns([name for name in names if name != time_name])
        durations = [name for name in names if name != time_name and name not in rates
                     and name.strip().lower().endswith("_ms")]
        if time_name is None or not rates:
            return None
        times, rate_series, duration_series = [], {name: [] for name in rates}, {name: [] for name in durations}
        for row in reader:
            t = number(row.get(time_name), time_scale(time_name))
            if math.isnan(t):
                continue
            times.append(t)
            for name, scale in rates.items():
                rate_series[name].append(number(row.get(name), scale))
            for name in durations:
                duration_series[name].append(number(row.get(name), 1.0))
    if times and times[0] > ABSOLUTE_TIME_S:
        offset = relay_origin_ns / 1e9 if relay_origin_ns is not None else times[0]
        times = [t - offset for t in times]
    return {"time_s": times, "rates": rate_series, "durations": duration_series}
