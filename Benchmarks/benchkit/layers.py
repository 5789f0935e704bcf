"""compare.py layers: what VP8 temporal layers cost in compression. A 1280x720 clip at 1500
kbit/s goes through the relay (no loss, no bottleneck, no delay) to the GStreamer receiver, from
camrtp with 1, 2 and 3 temporal layers (libwebrtc's patterns and rate split) and from ffmpeg's
libvpx with its own layering (-ts-parameters ts_layering_mode=2 and 3, the same rate split),
every sender at the same target.

- PSNR: mean and 5th percentile over the decoded frames, each matched to its source frame
  (frame_match), so frames the encoder dropped do not shift the others.
- kbit/s: the media the receiver got (the tap's bytes over the clip's length); layers shift bits
  between frames, so the PSNR is only comparable at the rate actually sent.
- ΔPSNR: a row's mean PSNR minus the same sender's one-layer row in the same round, the median
  over the rounds."""

import statistics
import sys

from .closed_loop import median_field, prepare_case, row_descriptions, run_matrix
from .common import cell, table
from .relay import LinkProfile
from .senders import FfmpegSender
from .session import run_session
from .stream_analysis import MEDIA_PAYLOAD_TYPE, media_ssrc

SIZE = (1280, 720)
CLIP_SECONDS = 10
FRAMES = 30 * CLIP_SECONDS
KBPS = 1500
CAMRTP_VARIANTS = [
    ("camrtp 1 layer", ["--temporal-layers", "1"], None),
    ("camrtp 2 layers", ["--temporal-layers", "2"], None),
    ("camrtp 3 layers", ["--temporal-layers", "3"], None),
]
CAMRTP_OPTIONAL = [["--retransmit", "rtx"], ["--local-port", "{local_port}"]]
CONDITION = "clean"
# libwebrtc's cumulative shares of the rate (SimulcastRateAllocator's kLayerRateAllocation).
SHARES = {2: (0.6, 1.0), 3: (0.4, 0.6, 1.0)}


class FfmpegLayeredSender(FfmpegSender):
    """ffmpeg's libvpx with temporal layers: ts_layering_mode 2 and 3 are libvpx's own 2- and
    3-layer reference patterns, at libwebrtc's rate split."""

    def __init__(self, layers):
        self.layers = layers
        self.name = f"ffmpeg {layers} layers"

    def ts_parameters(self, kbps):
        targets = ",".join(str(round(kbps * share)) for share in SHARES[self.layers])
        decimators = ",".join(str(1 << (self.layers - index - 1)) for index in range(self.layers))
        layer_ids = "0,1" if self.layers == 2 else "0,2,1,2"
        return (f"ts_number_layers={self.layers}:ts_target_bitrate={targets}:ts_rate_decimator={decimators}:"
                f"ts_periodicity={len(layer_ids.split(','))}:ts_layer_id={layer_ids}:ts_layering_mode={self.layers}")

    def description(self):
        return super().description().replace(
            "(matched)", f"(matched) -error-resilient default -ts-parameters {self.ts_parameters(KBPS)}")

    def command(self, session):
        command = super().command(session)
        at = command.index("-f")
        return command[:at] + ["-error-resilient", "default", "-ts-parameters", self.ts_parameters(session.kbps)] + command[at:]


def media_kbps(packets):
    ssrc = media_ssrc(packets)
    media = [p for p in packets if p.ssrc == ssrc and p.payload_type == MEDIA_PAYLOAD_TYPE]
    return sum(p.size for p in media) * 8 / 1000 / CLIP_SECONDS


def bench_layers(args, workdir):
    clip, source, rows, transport_cc = prepare_case(args, workdir, SIZE, FRAMES, KBPS, CAMRTP_VARIANTS,
                                                    CAMRTP_OPTIONAL)
    rows = [row for row in rows if row.is_camrtp or row.name == "ffmpeg"]
    rows += [sender for sender in (FfmpegLayeredSender(2), FfmpegLayeredSender(3))
             if not args.senders or any(word in sender.name for word in args.senders)]

    def run_one(row, condition, round_index):
        outcome = run_session(row, LinkProfile(one_way_delay_ms=0), clip, source, KBPS, workdir,
                              f"layers-{row.name.replace(' ', '_')}-{round_index}", seed=round_index + 1,
                              clip_seconds=CLIP_SECONDS,
                              transport_cc_extension_id=row.transport_cc_extension_id or transport_cc,
                              keep_files=args.keep)
        psnrs = [value for value in outcome.psnr_by_index if value is not None]
        ordered = sorted(psnrs)
        return {"failure": outcome.failure, "decodedFrames": len(psnrs),
                "psnrMean": statistics.mean(psnrs) if psnrs else None,
                "psnrP5": ordered[len(ordered) // 20] if ordered else None,
                "mediaKbps": media_kbps(outcome.tap_packets), "senderCpuSeconds": outcome.sender.get("cpuSeconds")}

    print(f"layers: {SIZE[0]}x{SIZE[1]} testsrc2, {FRAMES} frames at {KBPS} kbit/s, 1/2/3 temporal layers", file=sys.stderr)
    runs, unsupported = run_matrix(rows, [CONDITION], args.rounds, run_one)
    runs = {name: results for (name, _), results in runs.items()}
    return {"clip": f"{SIZE[0]}x{SIZE[1]} testsrc2 {FRAMES} frames", "kbps": KBPS,
            "rows": row_descriptions(rows, transport_cc), "unsupported": unsupported, "runs": runs,
            "medians": {name: {key: median_field(results, key) for key in results[0] if key != "failure"}
                        for name, results in runs.items() if results},
            "deltas": {name: psnr_delta(runs, name) for name in runs}}


def psnr_delta(runs, name):
    """Median over rounds of this row's mean PSNR minus its sender's one-layer row's."""
    base = "camrtp 1 layer" if name.startswith("camrtp") else "ffmpeg"
    pairs = [(a.get("psnrMean"), b.get("psnrMean")) for a, b in zip(runs.get(name, []), runs.get(base, []))]
    deltas = [a - b for a, b in pairs if a is not None and b is not None]
    return statistics.median(deltas) if deltas else None


def print_layers(report, rounds):
    print(f"\n== layers: {report['clip']} at {report['kbps']} kbit/s in real time, clean path, GStreamer receiver; "
          f"medians of {rounds} rounds ==")
    headers = ["sender", "decoded", "PSNR mean dB", "PSNR p5 dB", "ΔPSNR dB", "media kbit/s", "CPU s"]
    lines = []
    for row in report["rows"]:
        value = report["medians"].get(row["name"])
        if row["name"] in report["unsupported"] or value is None:
            continue
        lines.append([row["name"], cell(value.get("decodedFrames"), 0), cell(value.get("psnrMean"), 2),
                      cell(value.get("psnrP5"), 2), cell(report["deltas"].get(row["name"]), 2),
                      cell(value.get("mediaKbps"), 0), cell(value.get("senderCpuSeconds"), 2)])
    print(table(headers, lines))
    print("senders:")
    for row in report["rows"]:
        if row["name"] not in report["unsupported"]:
            print(f"  {row['name']}: {row['command']}")
