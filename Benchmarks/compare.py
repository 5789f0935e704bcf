#!/usr/bin/env python3
"""Side-by-side benchmarks of camrtp against vpxenc, ffmpeg and GStreamer.

The machine is shared and noisy, so nothing here is a timed pass/fail test: every tool runs in
the same invocation, alternating, for R rounds, and the report gives medians and ratios
(camrtp / other). Each child is measured from outside: wall time, CPU seconds (user + sys from
wait4's rusage) and peak RSS (ru_maxrss).

  compare.py encode    camrtp record vs vpxenc, 640x480 and 1280x720
  compare.py send      camrtp send vs the ffmpeg and GStreamer RTP senders, 1280x720
  compare.py latency   10 s of real-time 720p30: camrtp's latency vs encode time, CPU vs ffmpeg
  compare.py micro     the in-process camrtp-bench (allocations, packets/s)
  compare.py all       all of the above; --json FILE keeps the results

Python 3 standard library only.
"""

import argparse
import datetime
import json
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
DEFAULT_CAMRTP = os.path.join(REPO_DIR, ".build", "release", "camrtp")
MICRO_BUILD_DIR = os.path.join(BENCH_DIR, ".build", "release")

FRAMES = 300
FPS = 30
ENCODE_SIZES = [((640, 480), 800), ((1280, 720), 1500)]
SEND_SIZE, SEND_KBPS = (1280, 720), 1500
LATENCY_SECONDS = 10


# --- encoder settings -----------------------------------------------------------------------
# camrtp's VP8 settings are WebRTC's. "matched" gives the other tools the same values as far as
# each exposes them; "reference" is the exact commands of the project's reference measurements
# (no denoiser, static threshold 0, error resilience on for ffmpeg and GStreamer).

def vpxenc_args(kbps, variant):
    # --ivf in both variants: without it vpxenc writes WebM whatever the file is called, and
    # camrtp writes IVF.
    args = ["--ivf", "--codec=vp8", "--rt", "--cpu-used=-6", "--threads=1", "--end-usage=cbr",
            f"--target-bitrate={kbps}", "--lag-in-frames=0"]
    if variant == "matched":
        args += ["--min-q=2", "--max-q=56", "--undershoot-pct=100", "--overshoot-pct=15",
                 "--buf-initial-sz=500", "--buf-optimal-sz=600", "--buf-sz=1000",
                 "--drop-frame=30", "--noise-sensitivity=4", "--static-thresh=1",
                 "--token-parts=0", "--max-intra-rate=900", "--kf-max-dist=3000"]
    return args


def ffmpeg_vp8_args(kbps, variant):
    args = ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "-6", "-b:v", f"{kbps}k",
            "-minrate", f"{kbps}k", "-maxrate", f"{kbps}k", "-g", "3000"]
    if variant == "reference":
        return args + ["-error-resilient", "default", "-lag-in-frames", "0", "-threads", "1",
                       "-static-thresh", "0"]
    # Buffer sizes are in bits here: 1000 ms and 500 ms at the target rate. ffmpeg derives the
    # optimal level itself (5/6 of the buffer) and has no option for it.
    return args + ["-lag-in-frames", "0", "-threads", "1", "-qmin", "2", "-qmax", "56",
                   "-undershoot-pct", "100", "-overshoot-pct", "15",
                   "-bufsize", f"{kbps}k", "-rc_init_occupancy", f"{kbps // 2}k",
                   "-drop-threshold", "30", "-noise-sensitivity", "4", "-static-thresh", "1",
                   "-max-intra-rate", "900"]


def gst_vp8enc(kbps, variant):
    element = ["vp8enc", "deadline=1", "cpu-used=-6", "end-usage=cbr",
               f"target-bitrate={kbps * 1000}", "threads=1", "lag-in-frames=0"]
    if variant == "reference":
        return element + ["error-resilient=default", "keyframe-max-dist=3000", "static-threshold=0"]
    return element + ["keyframe-max-dist=3000", "static-threshold=1", "noise-sensitivity=4",
                      "max-intra-bitrate=900", "undershoot=100", "overshoot=15",
                      "buffer-initial-size=500", "buffer-optimal-size=600", "buffer-size=1000",
                      "dropframe-threshold=30", "min-quantizer=2", "max-quantizer=56",
                      "token-partitions=0"]


def camrtp_encoder_args(kbps, variant="matched"):
    args = ["--threads", "1", "--cpu-used=-6", "--bitrate", str(kbps), "--keyframe-interval", "0"]
    if variant == "reference":
        args += ["--noise-sensitivity", "0", "--static-threshold", "0"]
    return args


# --- running and measuring ------------------------------------------------------------------

class ToolFailed(Exception):
    pass


def measure(cmd, workdir, label):
    """Runs cmd to completion; returns wall s, CPU s and peak RSS MB from wait4."""
    log_path = os.path.join(workdir, f"{label}.log")
    with open(log_path, "wb") as log:
        start = time.monotonic()
        child = subprocess.Popen(cmd, cwd=workdir, stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        with open(log_path, "rb") as log:
            tail = log.read()[-2000:].decode(errors="replace")
        raise ToolFailed(f"{label} exited with {child.returncode}: {' '.join(cmd)}\n{tail}")
    return {"wallSeconds": wall, "cpuSeconds": usage.ru_utime + usage.ru_stime,
            "userSeconds": usage.ru_utime, "systemSeconds": usage.ru_stime,
            "peakRssMB": usage.ru_maxrss / 1024}


def make_clip(workdir, width, height):
    path = os.path.join(workdir, f"clip{width}x{height}.y4m")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        f"testsrc2=size={width}x{height}:rate={FPS}", "-frames:v", str(FRAMES),
                        "-pix_fmt", "yuv420p", path], check=True)
    return path


def ivf_frame_count(path):
    with open(path, "rb") as ivf:
        header = ivf.read(32)
    return struct.unpack("<4sHH4sHHIII4x", header)[8]


class UDPSinks:
    """Binds an RTP port and the RTCP port above it on 127.0.0.1 and never reads them: the
    senders pay the whole loopback delivery, full queues drop silently (no ICMP port
    unreachable), and no reader competes for the CPU."""

    def __enter__(self):
        for _ in range(100):
            port = random.randrange(20000, 60000, 2)
            sockets = []
            try:
                for offset in (0, 1):
                    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    sockets.append(sink)
                    sink.bind(("127.0.0.1", port + offset))
            except OSError:
                for sink in sockets:
                    sink.close()
                continue
            self.port, self.sockets = port, sockets
            return self
        raise OSError("no free even UDP port pair on 127.0.0.1")

    def __exit__(self, *exc):
        for sink in self.sockets:
            sink.close()


def run_rounds(tools, rounds):
    """tools: name -> function returning a result dict. The order rotates each round so
    that no tool always runs first (cold caches) or last."""
    names = list(tools)
    results = {name: [] for name in names}
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(tools[name]())
            print(f"  round {round_index + 1}/{rounds}: {name} done", file=sys.stderr)
    return results


def median_of(runs):
    """Median of every numeric field over the rounds."""
    keys = [key for key, value in runs[0].items() if isinstance(value, (int, float))]
    return {key: statistics.median(run[key] for run in runs) for key in keys}


def ratio(a, b):
    return a / b if b else float("nan")


def paired(runs, name, other, key):
    """Median over rounds of run[name] / run[other] for key. Both ran in the same round, close
    in time, so this cancels most of the machine's drift from round to round."""
    return statistics.median(ratio(a[key], b[key]) for a, b in zip(runs[name], runs[other]))


def paired_ratios(runs, name):
    return {other: {key: paired(runs, name, other, key) for key in ("fps", "cpuSeconds", "peakRssMB")}
            for other in runs if other != name}


def variant_ratios(runs, camrtp_name):
    """camrtp / other within each settings variant: matched rows against camrtp at its own
    (WebRTC) settings, reference rows against camrtp at the reference settings."""
    reference_name = camrtp_name + " reference"
    matched = {name: values for name, values in runs.items() if "reference" not in name}
    reference = {name: values for name, values in runs.items() if "reference" in name}
    return paired_ratios(matched, camrtp_name) | paired_ratios(reference, reference_name)


def table(headers, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    def line(cells):
        return "  ".join(str(cell).ljust(width) if index == 0 else str(cell).rjust(width)
                         for index, (cell, width) in enumerate(zip(cells, widths)))
    return "\n".join([line(headers), line(["-" * width for width in widths])] + [line(row) for row in rows])


def goal(ok):
    return "met" if ok else "NOT met"


def ratio_cells(ratios):
    if ratios is None:
        return ["", "", ""]
    return [f"{ratios['fps']:.3f}", f"{ratios['cpuSeconds']:.3f}", f"{ratios['peakRssMB']:.2f}"]


# --- encode ---------------------------------------------------------------------------------

def bench_encode(args, workdir):
    report = {"sizes": []}
    for (width, height), kbps in ENCODE_SIZES:
        clip = make_clip(workdir, width, height)
        label = f"{width}x{height}"

        def camrtp(frames, variant="matched"):
            def run():
                out = os.path.join(workdir, f"camrtp-{variant}-{label}.ivf")
                stats = os.path.join(workdir, f"camrtp-{variant}-{label}.json")
                result = measure([args.camrtp, "record", "--source", f"y4m:{clip}", "--out", out,
                                  "--frames", str(frames), "--pace", "fast", "--stats-json", stats]
                                 + camrtp_encoder_args(kbps, variant), workdir, f"camrtp-record-{variant}-{label}")
                with open(stats) as f:
                    result["framesEncoded"] = json.load(f)["framesEncoded"]
                result["outputKbps"] = os.path.getsize(out) * 8 / (frames / FPS) / 1000
                result["fps"] = frames / result["wallSeconds"]
                result["cpuMsPerFrame"] = result["cpuSeconds"] * 1000 / frames
                return result
            return run

        def vpxenc(variant, frames):
            def run():
                out = os.path.join(workdir, f"vpxenc-{variant}-{label}.ivf")
                result = measure(["vpxenc"] + vpxenc_args(kbps, variant) + [f"--limit={frames}", "-o", out, clip],
                                 workdir, f"vpxenc-{variant}-{label}")
                result["framesEncoded"] = ivf_frame_count(out)
                result["outputKbps"] = os.path.getsize(out) * 8 / (frames / FPS) / 1000
                result["fps"] = frames / result["wallSeconds"]
                result["cpuMsPerFrame"] = result["cpuSeconds"] * 1000 / frames
                return result
            return run

        # The 1-frame runs measure each program's fixed cost (start-up, set-up, first keyframe),
        # so the per-frame overhead can also be given without it.
        print(f"encode {label} @ {kbps} kbit/s", file=sys.stderr)
        runs = run_rounds({"camrtp record": camrtp(FRAMES), "vpxenc matched": vpxenc("matched", FRAMES),
                           "camrtp record reference": camrtp(FRAMES, "reference"),
                           "vpxenc reference": vpxenc("reference", FRAMES),
                           "camrtp record, 1 frame": camrtp(1), "vpxenc matched, 1 frame": vpxenc("matched", 1)},
                          args.rounds)
        medians = {name: median_of(values) for name, values in runs.items()}
        full = {name: values for name, values in runs.items() if not name.endswith("1 frame")}
        overhead = paired(runs, "camrtp record", "vpxenc matched", "cpuSeconds") - 1
        steady = statistics.median(
            ratio(camrtp["cpuSeconds"] - camrtp1["cpuSeconds"], vpxenc["cpuSeconds"] - vpxenc1["cpuSeconds"]) - 1
            for camrtp, camrtp1, vpxenc, vpxenc1 in zip(runs["camrtp record"], runs["camrtp record, 1 frame"],
                                                        runs["vpxenc matched"], runs["vpxenc matched, 1 frame"]))
        report["sizes"].append({"size": label, "kbps": kbps, "runs": runs, "medians": medians,
                                "ratios": variant_ratios(full, "camrtp record"),
                                "wrapperOverhead": overhead, "wrapperOverheadWithoutFixedCost": steady})
    return report


def print_encode(report, rounds):
    print(f"\n== encode: {FRAMES} frames of testsrc2 Y4M, VP8 CBR, cpu-used -6, 1 thread, "
          f"medians of {rounds} rounds; ratios camrtp / other, median of the per-round ratios ==")
    for size in report["sizes"]:
        medians, ratios = size["medians"], size["ratios"]
        rows = []
        for name, value in medians.items():
            if value["framesEncoded"] < 2:
                continue
            rows.append([name, f"{value['fps']:.1f}", f"{value['cpuSeconds']:.2f}",
                         f"{value['cpuMsPerFrame']:.2f}", f"{value['peakRssMB']:.1f}",
                         f"{value['framesEncoded']:.0f}", f"{value['outputKbps']:.0f}"] + ratio_cells(ratios.get(name)))
        fixed = [f"{name} {value['cpuSeconds'] * 1000:.0f} ms CPU, {value['peakRssMB']:.1f} MB"
                 for name, value in medians.items() if value["framesEncoded"] < 2]
        print(f"\n{size['size']} @ {size['kbps']} kbit/s")
        print(table(["tool", "fps", "CPU s", "CPU ms/frame", "RSS MB", "frames out", "kbit/s",
                     "fps ratio", "CPU ratio", "RSS ratio"], rows))
        overhead = size["wrapperOverhead"]
        steady = size["wrapperOverheadWithoutFixedCost"]
        print(f"wrapper overhead (camrtp CPU/frame / vpxenc matched CPU/frame - 1): "
              f"{overhead * 100:+.1f} %  (goal <= 3 %: {goal(overhead <= 0.03)})")
        print("fixed cost: " + "; ".join(fixed))
        print(f"  without each program's fixed cost (CPU of a 1-frame run subtracted): {steady * 100:+.1f} %")


# --- send -----------------------------------------------------------------------------------

def bench_send(args, workdir):
    width, height = SEND_SIZE
    clip = make_clip(workdir, width, height)
    with UDPSinks() as sinks:
        port = sinks.port

        def camrtp(variant):
            def run():
                stats = os.path.join(workdir, f"camrtp-send-{variant}.json")
                result = measure([args.camrtp, "send", "--source", f"y4m:{clip}",
                                  "--to", f"127.0.0.1:{port}", "--pace", "fast", "--stats-json", stats]
                                 + camrtp_encoder_args(SEND_KBPS, variant), workdir, f"camrtp-send-{variant}")
                with open(stats) as f:
                    data = json.load(f)
                result["framesEncoded"] = data["framesEncoded"]
                result["packetsSent"] = data["packetsSent"]
                result["fps"] = FRAMES / result["wallSeconds"]
                return result
            return run

        def ffmpeg(variant):
            def run():
                result = measure(["ffmpeg", "-nostdin", "-i", clip, "-an"] + ffmpeg_vp8_args(SEND_KBPS, variant)
                                 + ["-f", "rtp", "-payload_type", "96", "-sdp_file", "ff.sdp",
                                    f"rtp://127.0.0.1:{port}?pkt_size=1200"], workdir, f"ffmpeg-{variant}")
                result["fps"] = FRAMES / result["wallSeconds"]
                return result
            return run

        def gstreamer(variant):
            def run():
                result = measure(["gst-launch-1.0", "-q", "filesrc", f"location={clip}", "!", "y4mdec", "!"]
                                 + gst_vp8enc(SEND_KBPS, variant)
                                 + ["!", "rtpvp8pay", "pt=96", "mtu=1200", "!", "udpsink", "host=127.0.0.1",
                                    f"port={port}", "sync=false"], workdir, f"gstreamer-{variant}")
                result["fps"] = FRAMES / result["wallSeconds"]
                return result
            return run

        print("send 1280x720 @ 1500 kbit/s", file=sys.stderr)
        runs = run_rounds({"camrtp send": camrtp("matched"),
                           "ffmpeg matched": ffmpeg("matched"), "gstreamer matched": gstreamer("matched"),
                           "camrtp send reference": camrtp("reference"),
                           "ffmpeg reference": ffmpeg("reference"), "gstreamer reference": gstreamer("reference")},
                          args.rounds)
    return {"size": f"{width}x{height}", "kbps": SEND_KBPS, "runs": runs,
            "medians": {name: median_of(values) for name, values in runs.items()},
            "ratios": variant_ratios(runs, "camrtp send")}


def print_send(report, rounds):
    medians, ratios = report["medians"], report["ratios"]
    camrtp = medians["camrtp send"]
    print(f"\n== send: {FRAMES} frames of {report['size']} Y4M -> VP8 {report['kbps']} kbit/s -> RTP "
          f"(mtu 1200) -> 127.0.0.1, as fast as possible, medians of {rounds} rounds; ratios camrtp / other, median of the per-round ratios ==")
    rows = []
    for name, value in medians.items():
        rows.append([name, f"{value['fps']:.1f}", f"{value['cpuSeconds']:.2f}", f"{value['peakRssMB']:.1f}"]
                    + ratio_cells(ratios.get(name)))
    print(table(["sender", "fps", "CPU s", "RSS MB", "fps ratio", "CPU ratio", "RSS ratio"], rows))
    print(f"camrtp: {camrtp['framesEncoded']:.0f} frames encoded, {camrtp['packetsSent']:.0f} packets")
    for variant, suffix in (("matched", ""), ("reference", " reference")):
        ffmpeg, gstreamer = ratios[f"ffmpeg {variant}"], ratios[f"gstreamer {variant}"]
        rss = medians["camrtp send" + suffix]["peakRssMB"]
        print(f"goals ({variant} settings, paired ratios): fps >= ffmpeg's: {goal(ffmpeg['fps'] >= 1)}; "
              f"CPU <= both: {goal(max(ffmpeg['cpuSeconds'], gstreamer['cpuSeconds']) <= 1)}; "
              f"RSS < 40 MB: {goal(rss < 40)}")


# --- latency --------------------------------------------------------------------------------

def bench_latency(args, workdir):
    width, height = SEND_SIZE
    clip = make_clip(workdir, width, height)
    with UDPSinks() as sinks:
        port = sinks.port

        def camrtp(source, extra):
            def run():
                stats = os.path.join(workdir, "camrtp-latency.json")
                result = measure([args.camrtp, "send", "--source", source, "--duration", str(LATENCY_SECONDS),
                                  "--to", f"127.0.0.1:{port}", "--stats-json", stats]
                                 + extra + camrtp_encoder_args(SEND_KBPS), workdir, "camrtp-latency")
                with open(stats) as f:
                    data = json.load(f)
                result.update({"framesCaptured": data["framesCaptured"], "framesEncoded": data["framesEncoded"],
                               "framesDropped": sum(data["framesDropped"].values()),
                               "encodeP50": data["encodeMs"]["p50"], "encodeP99": data["encodeMs"]["p99"],
                               "latencyP50": data["latencyMs"]["p50"], "latencyP99": data["latencyMs"]["p99"],
                               "latencyMax": data["latencyMs"]["max"]})
                return result
            return run

        def ffmpeg():
            return measure(["ffmpeg", "-nostdin", "-re", "-stream_loop", "-1", "-i", clip,
                            "-t", str(LATENCY_SECONDS), "-an"] + ffmpeg_vp8_args(SEND_KBPS, "matched")
                           + ["-f", "rtp", "-payload_type", "96", "-sdp_file", "ff.sdp",
                              f"rtp://127.0.0.1:{port}?pkt_size=1200"], workdir, "ffmpeg-realtime")

        print(f"latency: {LATENCY_SECONDS} s of 1280x720@30", file=sys.stderr)
        runs = run_rounds({"camrtp testsrc": camrtp(f"testsrc:{width}x{height}@{FPS}", []),
                           "camrtp y4m --loop": camrtp(f"y4m:{clip}", ["--loop"]),
                           "ffmpeg -re matched": ffmpeg}, args.rounds)
    medians = {name: median_of(values) for name, values in runs.items()}
    ratios = {name: paired(runs, name, "ffmpeg -re matched", "cpuSeconds") for name in runs if name.startswith("camrtp")}
    return {"seconds": LATENCY_SECONDS, "runs": runs, "medians": medians, "cpuRatios": ratios}


def print_latency(report, rounds):
    medians, ratios = report["medians"], report["cpuRatios"]
    print(f"\n== latency: {report['seconds']} s of 1280x720@30 in real time, VP8 1500 kbit/s -> RTP -> "
          f"127.0.0.1, medians of {rounds} rounds; ratios camrtp / other, median of the per-round ratios ==")
    rows = []
    for name, value in medians.items():
        camrtp = "latencyP99" in value
        rows.append([name, f"{value['cpuSeconds']:.2f}", f"{value['peakRssMB']:.1f}",
                     f"{ratios[name]:.3f}" if camrtp else "",
                     f"{value['framesEncoded']:.0f}/{value['framesCaptured']:.0f}" if camrtp else "",
                     f"{value['encodeP50']:.2f}" if camrtp else "", f"{value['encodeP99']:.2f}" if camrtp else "",
                     f"{value['latencyP50']:.2f}" if camrtp else "", f"{value['latencyP99']:.2f}" if camrtp else "",
                     f"{value['latencyMax']:.2f}" if camrtp else "",
                     goal(value["latencyP99"] <= value["encodeP99"] + 2) if camrtp else ""])
    print(table(["sender", "CPU s", "RSS MB", "CPU ratio", "encoded/captured", "enc p50 ms", "enc p99 ms",
                 "lat p50 ms", "lat p99 ms", "lat max ms", "lat p99 <= enc p99 + 2"], rows))


# --- micro ----------------------------------------------------------------------------------

def bench_micro(args, workdir):
    binary = os.path.join(MICRO_BUILD_DIR, "camrtp-bench")
    interposer = os.path.join(MICRO_BUILD_DIR, "libMallocInterposerSwift.so")
    if not os.path.exists(binary):
        raise ToolFailed("camrtp-bench is not built: (cd Benchmarks && swift build -c release)")
    out = os.path.join(workdir, "micro.json")
    env = dict(os.environ, LD_PRELOAD=interposer)
    completed = subprocess.run([binary, "--json", out], env=env, stdout=subprocess.PIPE, text=True)
    print("\n== micro: camrtp-bench (in process) ==")
    print(completed.stdout, end="")
    if completed.returncode != 0:
        raise ToolFailed(f"camrtp-bench exited with {completed.returncode}")
    with open(out) as f:
        return json.load(f)


# --- main -----------------------------------------------------------------------------------

def tool_versions(camrtp):
    def first_line(cmd, match=""):
        try:
            output = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        except OSError:
            return "missing"
        lines = [line.strip() for line in output.splitlines() if match in line]
        return lines[0] if lines else "unknown"
    return {"camrtp": first_line([camrtp, "--version"]),
            "vpxenc": first_line(["vpxenc", "--help"], "vp8"),
            "ffmpeg": first_line(["ffmpeg", "-version"]),
            "gstreamer": first_line(["gst-launch-1.0", "--version"], "GStreamer")}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["encode", "send", "latency", "micro", "all"])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per tool (default 3)")
    parser.add_argument("--camrtp", default=DEFAULT_CAMRTP, help="the camrtp binary (default: the release build)")
    parser.add_argument("--json", metavar="FILE", help="also write the results, every round included, as JSON")
    args = parser.parse_args()
    if not os.access(args.camrtp, os.X_OK) and args.command != "micro":
        sys.exit(f"{args.camrtp} not found: swift build -c release --product camrtp")

    benches = {"encode": (bench_encode, print_encode), "send": (bench_send, print_send),
               "latency": (bench_latency, print_latency), "micro": (bench_micro, None)}
    selected = list(benches) if args.command == "all" else [args.command]
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "rounds": args.rounds, "cpus": os.cpu_count(), "tools": tool_versions(args.camrtp)}
    with tempfile.TemporaryDirectory(prefix="camrtp-bench-") as workdir:
        for name in selected:
            run, show = benches[name]
            try:
                results[name] = run(args, workdir)
            except ToolFailed as error:
                sys.exit(str(error))
            if show:
                show(results[name], args.rounds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
        print(f"\nresults written to {args.json}")


if __name__ == "__main__":
    main()
