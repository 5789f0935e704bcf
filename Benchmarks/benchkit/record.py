"""compare.py record: a recording against ffmpeg's libvpx and vpxenc, each with its real-time
defaults (deadline realtime, cpu-used -6, one thread, the same keyframe every 2 s), on clips of
kinds the project is never tuned on, compared at equal file size. Every encoder is deterministic
here (a fixed cpu-used on one thread), so each runs once per bitrate. camrtp is run again at a
corrected bitrate until its file is within SIZE_TOLERANCE of the other tool's, so that PSNR is
compared at the same size. Standard library only."""

import os
import re
import struct
import subprocess
import sys

from .common import FPS, ToolFailed, cell, goal, measure, table
from .encoder_settings import ffmpeg_recording_args, vpxenc_recording_args

WIDTH, HEIGHT, FRAMES = 640, 480, 90
CLIPS = {
    "cellauto": f"cellauto=size={WIDTH}x{HEIGHT}:rate={FPS}:rule=18:random_fill_ratio=0.1:seed=19",
    "mandelbrot": f"mandelbrot=size={WIDTH}x{HEIGHT}:rate={FPS}",
    "sierpinski": f"sierpinski=size={WIDTH}x{HEIGHT}:rate={FPS}:seed=19",
}
RATES_KBPS = [400, 1000, 2500]
KEYFRAME_SECONDS = 2
SIZE_TOLERANCE = 0.02
MATCH_ATTEMPTS = 4
GOAL_DB = 0.5


def make_clip(workdir, name):
    path = os.path.join(workdir, f"record-{name}.y4m")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", CLIPS[name],
                        "-frames:v", str(FRAMES), "-pix_fmt", "yuv420p", path], check=True)
    return path


def ivf_frame_sizes(path):
    with open(path, "rb") as ivf:
        data = ivf.read()
    header_size = struct.unpack_from("<H", data, 6)[0]
    sizes, offset = [], header_size
    while offset + 12 <= len(data):
        size = struct.unpack_from("<I", data, offset)[0]
        sizes.append(size)
        offset += 12 + size
    return sizes


def psnr(encoded, clip):
    """ffmpeg's psnr filter over every frame, Y, U and V together (its `average`)."""
    output = subprocess.run(["ffmpeg", "-nostdin", "-i", encoded, "-i", clip, "-lavfi",
                             "[0:v]setpts=N/30/TB[a];[1:v]setpts=N/30/TB[b];[a][b]psnr", "-f", "null", "-"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    match = re.search(r"PSNR y:\S+ u:\S+ v:\S+ average:(\S+)", output)
    if not match:
        raise ToolFailed(f"no PSNR for {encoded}:\n{output[-1000:]}")
    return float(match.group(1)) if match.group(1) != "inf" else 100.0


def commands(camrtp, clip, kbps, out):
    keyframe_frames = KEYFRAME_SECONDS * FPS
    return {
        "camrtp record": [camrtp, "record", "--source", f"y4m:{clip}", "--out", out, "--pace", "fast",
                          "--threads", "1", "--cpu-used=-6", "--bitrate", str(kbps),
                          "--keyframe-interval", str(KEYFRAME_SECONDS)],
        "vpxenc": ["vpxenc", "--quiet"] + vpxenc_recording_args(kbps, keyframe_frames) + ["-o", out, clip],
        "ffmpeg": ["ffmpeg", "-nostdin", "-y", "-i", clip] + ffmpeg_recording_args(kbps, keyframe_frames) + ["-f", "ivf", out],
    }


def encode(args, workdir, clip_name, clip, tool, kbps):
    out = os.path.join(workdir, f"record-{clip_name}-{tool.replace(' ', '-')}-{kbps}.ivf")
    result = measure(commands(args.camrtp, clip, kbps, out)[tool], workdir, f"record-{tool.replace(' ', '-')}")
    frames = ivf_frame_sizes(out)
    return {"kbps": kbps, "bytes": os.path.getsize(out), "frames": len(frames), "keyframeBytes": frames[0],
            "outputKbps": sum(frames) * 8 / (FRAMES / FPS) / 1000, "psnr": psnr(out, clip),
            "cpuSeconds": result["cpuSeconds"]}


def matched_camrtp(args, workdir, clip_name, clip, target_bytes, first):
    """camrtp's run whose file is closest to target_bytes: the one at the same bitrate first,
    then bitrates corrected by the size ratio."""
    runs = [first]
    kbps = first["kbps"]
    while abs(runs[-1]["bytes"] / target_bytes - 1) > SIZE_TOLERANCE and len(runs) < MATCH_ATTEMPTS:
        kbps = max(1, round(kbps * target_bytes / runs[-1]["bytes"]))
        if any(run["kbps"] == kbps for run in runs):
            break
        runs.append(encode(args, workdir, clip_name, clip, "camrtp record", kbps))
    return min(runs, key=lambda run: abs(run["bytes"] / target_bytes - 1))


def bench_record(args, workdir):
    cases = []
    for clip_name in CLIPS:
        clip = make_clip(workdir, clip_name)
        for kbps in RATES_KBPS:
            print(f"record {clip_name} @ {kbps} kbit/s", file=sys.stderr)
            runs = {tool: encode(args, workdir, clip_name, clip, tool, kbps) for tool in ("camrtp record", "vpxenc", "ffmpeg")}
            matches = {}
            for other in ("vpxenc", "ffmpeg"):
                camrtp = matched_camrtp(args, workdir, clip_name, clip, runs[other]["bytes"], runs["camrtp record"])
                matches[other] = {"camrtpKbps": camrtp["kbps"], "sizeRatio": camrtp["bytes"] / runs[other]["bytes"],
                                  "deltaDb": camrtp["psnr"] - runs[other]["psnr"]}
            cases.append({"clip": clip_name, "kbps": kbps, "runs": runs, "atEqualSize": matches})
    return {"size": f"{WIDTH}x{HEIGHT}", "frames": FRAMES, "cases": cases}


def print_record(report, rounds):
    print(f"\n== record: {report['frames']} frames of {report['size']} at {FPS} fps per clip, VP8 real-time "
          f"(cpu-used -6, 1 thread, a keyframe every {KEYFRAME_SECONDS} s), each tool once per bitrate; "
          f"dB = camrtp's PSNR - the other's, camrtp re-run at a corrected bitrate to within "
          f"{SIZE_TOLERANCE * 100:.0f} % of the other's file size ==")
    rows, met = [], 0
    for case in report["cases"]:
        for tool, run in case["runs"].items():
            match = case["atEqualSize"].get(tool)
            rows.append([case["clip"], case["kbps"], tool, f"{run['bytes'] / 1000:.1f}", f"{run['outputKbps']:.0f}",
                         f"{run['keyframeBytes'] / 1000:.1f}", f"{run['frames']}", f"{run['psnr']:.2f}",
                         f"{match['camrtpKbps']}" if match else "", f"{match['sizeRatio']:.3f}" if match else "",
                         cell(match["deltaDb"], 2) if match else ""])
        met += all(match["deltaDb"] >= -GOAL_DB and abs(match["sizeRatio"] - 1) <= SIZE_TOLERANCE
                   for match in case["atEqualSize"].values())
    print(table(["clip", "kbit/s", "tool", "KB", "kbit/s out", "keyframe KB", "frames", "PSNR dB",
                 "camrtp at kbit/s", "size ratio", "dB at equal size"], rows))
    total = len(report["cases"])
    print(f"goal (camrtp within {GOAL_DB} dB of vpxenc and ffmpeg at equal size): {goal(met == total)}, {met} of {total} cases")
