#!/usr/bin/env python3
"""Side-by-side benchmarks of camrtp against vpxenc, ffmpeg and GStreamer.

The machine is shared and noisy, so nothing here is a timed pass/fail test: every tool runs in
the same invocation, alternating, for R rounds, and the report gives medians and ratios
(camrtp / other). Each child is measured from outside: wall time, CPU seconds (user + sys from
wait4's rusage) and peak RSS (ru_maxrss).

  compare.py encode      camrtp record vs vpxenc at the same settings, 640x480 and 1280x720
  compare.py send        camrtp send vs the ffmpeg and GStreamer RTP senders, 1280x720
  compare.py latency     10 s of real-time 720p30: camrtp's latency vs encode time, CPU vs ffmpeg
  compare.py micro       the in-process camrtp-bench (allocations, packets/s)
  compare.py feedback    loss repair through the impairment relay (0/2/5 % loss, 40 ms RTT; --rtt)
  compare.py fec         FEC (RED + ULPFEC) against NACK alone, 2/5 % loss, 200 ms RTT (--rtt)
  compare.py congestion  an 800 kbit/s bottleneck and a 2000/600/2000 kbit/s step
  compare.py pacing      a clean path: keyframe spread, bursts and jitter with and without the pacer
  compare.py overload    an encoder that cannot keep up: latency bound and late drops
  compare.py record      camrtp record vs ffmpeg's libvpx and vpxenc at equal file size (PSNR)
  compare.py memory      peak RSS of send, publish and serve (1 and 4 viewers) against vpxenc
  compare.py layers      temporal layers: PSNR at the same bitrate with 1, 2 and 3 layers, beside ffmpeg's
  compare.py all         all of the above; --json FILE keeps the results

encode, send, latency, micro, overload, record and memory need the Python 3 standard library only
(memory also root, ip and Debian's /usr/bin/python3 with aiortc for its peers); feedback,
congestion and layers match decoded frames with numpy, and congestion plots with matplotlib when
it can (Debian's /usr/bin/python3 has both).
"""

import argparse
import contextlib
import datetime
import importlib
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile

from benchkit.common import (FPS, MachineLoad, ToolFailed, UDPSinks, goal, make_clip, measure, median_of,
                             paired, ratio, run_rounds, table)
from benchkit.encoder_settings import camrtp_encoder_args, ffmpeg_vp8_args, gst_vp8enc, vpxenc_args, vpxenc_recording_args
from benchkit import receivers
from benchkit.memory import bench_memory, print_memory
from benchkit.record import bench_record, print_record
from benchkit.senders import CamrtpBuild

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
DEFAULT_CAMRTP = os.path.join(REPO_DIR, ".build", "release", "camrtp")
MICRO_BUILD_DIR = os.path.join(BENCH_DIR, ".build", "release")

FRAMES = 300
ENCODE_SIZES = [((640, 480), 800), ((1280, 720), 1500)]
SEND_SIZE, SEND_KBPS = (1280, 720), 1500
LATENCY_SECONDS = 10


# --- comparisons ----------------------------------------------------------------------------

def ivf_frame_count(path):
    with open(path, "rb") as ivf:
        header = ivf.read(32)
    return struct.unpack("<4sHH4sHHIII4x", header)[8]


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


def ratio_cells(ratios):
    if ratios is None:
        return ["", "", ""]
    return [f"{ratios['fps']:.3f}", f"{ratios['cpuSeconds']:.3f}", f"{ratios['peakRssMB']:.2f}"]


# --- encode ---------------------------------------------------------------------------------

def bench_encode(args, workdir):
    report = {"sizes": []}
    for (width, height), kbps in ENCODE_SIZES:
        clip = make_clip(workdir, width, height, FRAMES)
        label = f"{width}x{height}"

        def camrtp(frames):
            def run():
                out = os.path.join(workdir, f"camrtp-{label}.ivf")
                stats = os.path.join(workdir, f"camrtp-{label}.json")
                result = measure([args.camrtp, "record", "--source", f"y4m:{clip}", "--out", out,
                                  "--frames", str(frames), "--pace", "fast", "--stats-json", stats]
                                 + camrtp_encoder_args(kbps), workdir, f"camrtp-record-{label}")
                with open(stats) as f:
                    result["framesEncoded"] = json.load(f)["framesEncoded"]
                result["outputKbps"] = os.path.getsize(out) * 8 / (frames / FPS) / 1000
                result["fps"] = frames / result["wallSeconds"]
                result["cpuMsPerFrame"] = result["cpuSeconds"] * 1000 / frames
                return result
            return run

        def vpxenc(frames):
            def run():
                out = os.path.join(workdir, f"vpxenc-{label}.ivf")
                result = measure(["vpxenc"] + vpxenc_recording_args(kbps) + [f"--limit={frames}", "-o", out, clip],
                                 workdir, f"vpxenc-{label}")
                result["framesEncoded"] = ivf_frame_count(out)
                result["outputKbps"] = os.path.getsize(out) * 8 / (frames / FPS) / 1000
                result["fps"] = frames / result["wallSeconds"]
                result["cpuMsPerFrame"] = result["cpuSeconds"] * 1000 / frames
                return result
            return run

        # The 1-frame runs measure each program's fixed cost (start-up, set-up, first keyframe),
        # so the per-frame overhead can also be given without it.
        print(f"encode {label} @ {kbps} kbit/s", file=sys.stderr)
        runs = run_rounds({"camrtp record": camrtp(FRAMES), "vpxenc matched": vpxenc(FRAMES),
                           "camrtp record, 1 frame": camrtp(1), "vpxenc matched, 1 frame": vpxenc(1)},
                          args.rounds)
        medians = {name: median_of(values) for name, values in runs.items()}
        full = {name: values for name, values in runs.items() if not name.endswith("1 frame")}
        overhead = paired(runs, "camrtp record", "vpxenc matched", "cpuSeconds") - 1
        steady = statistics.median(
            ratio(camrtp["cpuSeconds"] - camrtp1["cpuSeconds"], vpxenc["cpuSeconds"] - vpxenc1["cpuSeconds"]) - 1
            for camrtp, camrtp1, vpxenc, vpxenc1 in zip(runs["camrtp record"], runs["camrtp record, 1 frame"],
                                                        runs["vpxenc matched"], runs["vpxenc matched, 1 frame"]))
        report["sizes"].append({"size": label, "kbps": kbps, "runs": runs, "medians": medians,
                                "ratios": paired_ratios(full, "camrtp record"),
                                "wrapperOverhead": overhead, "wrapperOverheadWithoutFixedCost": steady})
    return report


def print_encode(report, rounds):
    print(f"\n== encode: {FRAMES} frames of testsrc2 Y4M, VP8 with camrtp record's settings (libvpx's real-time VBR defaults), cpu-used -6, 1 thread, "
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
    clip = make_clip(workdir, width, height, FRAMES)
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

        # libvpx alone at the same settings, writing a file: the memory no sender can go below.
        def vpxenc(variant):
            def run():
                result = measure(["vpxenc", "--quiet"] + vpxenc_args(SEND_KBPS, variant)
                                 + ["-o", os.path.join(workdir, f"vpxenc-send-{variant}.ivf"), clip],
                                 workdir, f"vpxenc-send-{variant}")
                result["fps"] = FRAMES / result["wallSeconds"]
                return result
            return run

        print("send 1280x720 @ 1500 kbit/s", file=sys.stderr)
        runs = run_rounds({"camrtp send": camrtp("matched"),
                           "ffmpeg matched": ffmpeg("matched"), "gstreamer matched": gstreamer("matched"),
                           "vpxenc matched (file)": vpxenc("matched"),
                           "camrtp send reference": camrtp("reference"),
                           "ffmpeg reference": ffmpeg("reference"), "gstreamer reference": gstreamer("reference"),
                           "vpxenc reference (file)": vpxenc("reference")},
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
        above = statistics.median(camrtp["peakRssMB"] - alone["peakRssMB"] for camrtp, alone
                                  in zip(report["runs"]["camrtp send" + suffix], report["runs"][f"vpxenc {variant} (file)"]))
        print(f"goals ({variant} settings, paired ratios): fps >= ffmpeg's: {goal(ffmpeg['fps'] >= 1)}; "
              f"CPU <= both: {goal(max(ffmpeg['cpuSeconds'], gstreamer['cpuSeconds']) <= 1)}; "
              f"RSS <= 45 MB: {goal(rss <= 45)} ({above:+.1f} MB above libvpx alone in vpxenc)")


# --- latency --------------------------------------------------------------------------------

def bench_latency(args, workdir):
    width, height = SEND_SIZE
    clip = make_clip(workdir, width, height, FRAMES)
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


# Cases with a module of their own in benchkit (feedback and congestion import numpy).
CLOSED_LOOP = ("feedback", "fec", "congestion", "pacing", "overload", "layers")


def closed_loop_bench(name):
    try:
        module = importlib.import_module(f"benchkit.{name}")
    except ImportError as error:
        sys.exit(f"compare.py {name} needs numpy ({error}): run it with a Python 3 that has it, such as Debian's")
    return getattr(module, f"bench_{name}"), getattr(module, f"print_{name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["encode", "send", "latency", "micro", "record", "memory", *CLOSED_LOOP, "all"])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per tool (default 3)")
    parser.add_argument("--camrtp", default=DEFAULT_CAMRTP, help="the camrtp binary (default: the release build)")
    parser.add_argument("--json", metavar="FILE", help="also write the results, every round included, as JSON")
    closed = parser.add_argument_group("closed-loop cases (feedback, fec, congestion, pacing)")
    closed.add_argument("--senders", type=lambda text: [word.strip() for word in text.split(",") if word.strip()],
                        default=[], metavar="WORD,...",
                        help="only the rows whose name contains one of these words, such as camrtp,gstreamer")
    closed.add_argument("--camrtp-variant", action="append", default=[], metavar="NAME=ARGS",
                        help='one more camrtp row, such as "camrtp paced=--pacing on" (repeatable)')
    closed.add_argument("--rtt", type=lambda text: [float(value) for value in text.split(",") if value.strip()],
                        metavar="MS,...", help="the path's round-trip times for feedback and fec "
                                               "(default: 40 for feedback, 200 for fec)")
    closed.add_argument("--receiver-rtcp-bandwidth", type=int, default=receivers.RTCP_SESSION_BANDWIDTH, metavar="BPS",
                        help="the session bandwidth GStreamer's receiver reckons its RTCP share from, which sets how "
                             "soon its NACKs leave (default %(default)s)")
    closed.add_argument("--plot-dir", default=os.path.join(BENCH_DIR, "results"), metavar="DIR",
                        help="where congestion writes its PNGs (default: Benchmarks/results)")
    closed.add_argument("--workdir", metavar="DIR",
                        help="work in DIR and keep every session's files there (default: a temporary directory)")
    args = parser.parse_args()
    if not os.access(args.camrtp, os.X_OK) and args.command != "micro":
        sys.exit(f"{args.camrtp} not found: swift build -c release (camrtp and camrtp-webrtc)")
    args.camrtp_build = CamrtpBuild(args.camrtp)
    receivers.RTCP_SESSION_BANDWIDTH = args.receiver_rtcp_bandwidth
    args.keep = args.workdir is not None

    benches = {"encode": (bench_encode, print_encode), "send": (bench_send, print_send),
               "latency": (bench_latency, print_latency), "micro": (bench_micro, None),
               "record": (bench_record, print_record), "memory": (bench_memory, print_memory)}
    selected = list(benches) + list(CLOSED_LOOP) if args.command == "all" else [args.command]
    for name in selected:
        if name in CLOSED_LOOP:
            benches[name] = closed_loop_bench(name)
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "rounds": args.rounds, "cpus": os.cpu_count(), "tools": tool_versions(args.camrtp)}
    with contextlib.ExitStack() as stack:
        if args.workdir:
            os.makedirs(args.workdir, exist_ok=True)
            workdir = args.workdir
        else:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="camrtp-bench-"))
        for name in selected:
            run, show = benches[name]
            try:
                with MachineLoad() as load:
                    results[name] = run(args, workdir)
            except ToolFailed as error:
                sys.exit(str(error))
            results[name]["load"] = load.report()
            if show:
                show(results[name], args.rounds)
            print(MachineLoad.describe(load.report()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
        print(f"\nresults written to {args.json}")


if __name__ == "__main__":
    main()
