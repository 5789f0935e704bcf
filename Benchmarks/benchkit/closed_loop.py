"""What the closed-loop cases share: the rows (senders), the rounds over conditions, and the
"not supported by this build" bookkeeping."""

import shlex
import statistics
import sys

from .common import make_clip, rotated
from .encoder_settings import camrtp_encoder_args
from .frame_match import SourceClip
from .receivers import variant_name
from .senders import CamrtpSender, FfmpegSender, GStreamerAnchor, Unsupported


def parse_variant(text):
    """--camrtp-variant "NAME=ARGS": a camrtp row of the user's own."""
    name, separator, args = text.partition("=")
    if not separator or not name.strip():
        raise ValueError(f'--camrtp-variant "{text}": expected NAME=ARGS, such as "camrtp paced=--pacing on"')
    return name.strip(), shlex.split(args)


def build_rows(build, base_args, camrtp_variants, optional, extra_variants, only, anchors=None):
    """camrtp rows (name, args, unless) with the common `optional` groups, then the anchors
    (GStreamer's and ffmpeg's senders unless told). A row with `unless` (an option) is left out
    when the build takes that option: it stands for the build before it. `only` keeps the rows
    whose name contains one of its words."""
    rows = [CamrtpSender(build, name, base_args, args, optional) for name, args, unless in camrtp_variants
            if not unless or build.missing([unless])]
    rows += [CamrtpSender(build, name, base_args, args, optional) for name, args in map(parse_variant, extra_variants)]
    rows += anchors if anchors is not None else [GStreamerAnchor(), FfmpegSender()]
    if only:
        rows = [row for row in rows if any(word in row.name for word in only)]
    return rows


def prepare_case(args, workdir, size, frames, kbps, camrtp_variants, optional, anchors=None):
    """A case's clip (testsrc2), its frames for matching, its rows, and the TWCC extension id the
    receiver offers."""
    clip = make_clip(workdir, *size, frames)
    rows = build_rows(args.camrtp_build, camrtp_encoder_args(kbps), camrtp_variants, optional,
                      args.camrtp_variant, args.senders, anchors)
    return clip, SourceClip(clip), rows, receiver_transport_cc(rows)


def run_matrix(rows, conditions, rounds, run_one):
    """Every row under every condition, `rounds` times; the row order rotates each round.
    run_one(row, condition, round_index) -> result dict. Returns {(row name, condition): [results]}
    and {row name: why it is not supported}."""
    runs = {(row.name, condition): [] for row in rows for condition in conditions}
    unsupported = {row.name: row.unsupported for row in rows if row.unsupported}
    active = [row for row in rows if not row.unsupported]
    for round_index in range(rounds):
        for condition in conditions:
            for row in rotated(list(active), round_index):
                if row.name in unsupported:
                    continue
                try:
                    result = run_one(row, condition, round_index)
                except Unsupported as refusal:
                    unsupported[row.name] = f"camrtp refused it: {refusal}"
                    print(f"  {row.name}: not supported by this build ({refusal})", file=sys.stderr)
                    continue
                runs[(row.name, condition)].append(result)
                print(f"  round {round_index + 1}/{rounds}: {row.name} at {condition} done"
                      + (f" (FAILED: {result['failure']})" if result.get("failure") else ""), file=sys.stderr)
    return runs, unsupported


def median_field(results, key):
    values = [result[key] for result in results if isinstance(result.get(key), (int, float))]
    return statistics.median(values) if values else None


def receiver_transport_cc(rows):
    """The TWCC extension id the receiver offers in a case: camrtp's, when it numbers packets."""
    ids = {row.transport_cc_extension_id for row in rows if row.is_camrtp and not row.unsupported} - {None}
    return min(ids) if ids else None


def row_descriptions(rows, transport_cc_extension_id):
    return [{"name": row.name, "command": row.description(),
             "receiver": None if row.unsupported else
             variant_name(row.rtx_payload_type, row.transport_cc_extension_id or transport_cc_extension_id)}
            for row in rows]
