"""One closed-loop session: receiver, tap, relay and sender started in that order, the sender
run to its end, the path drained, everything stopped, and what arrived analysed."""

import dataclasses
import os
import time

from .common import ToolFailed, measure
from .ports import free_port_pair
from .receivers import GStreamerReceiver
from .relay import ImpairmentRelay
from .rtp_tap import REDFormat, RTPTap
from .senders import SessionPorts, Unsupported
from .stream_analysis import StreamAnalysis

SENDER_TIMEOUT_MARGIN_S = 30
# After the sender ends: the relay's queue, the path delay and the jitter buffer must empty.
DRAIN_AFTER_S = 1.5


@dataclasses.dataclass
class SessionOutcome:
    sender: dict             # wall/CPU/RSS of the sender and what it reported itself
    relay_stats: dict
    relay_packets: list
    tap_packets: list
    relay_origin_ns: int | None  # CLOCK_MONOTONIC of the relay's time 0 (its first packet)
    stream: dict             # StreamAnalysis.report()
    psnr_by_index: list      # per source frame: PSNR of the decoded frame that shows it, or None
    decoded_frames: int
    unmatched_frames: int
    failure: str | None = None
    receiver_figures: dict | None = None  # what the receiver counted itself, when it says


def rtpbin_receiver(session_dir, rtp_port, feedback_port, sender, transport_cc_extension_id):
    """The closed-loop cases' receiver: GStreamer's rtpbin, or its RTX variant."""
    return GStreamerReceiver(session_dir, rtp_port, feedback_port, sender.rtx_payload_type, transport_cc_extension_id)


def run_session(sender, profile, clip, source, kbps, workdir, label, seed, clip_seconds,
                transport_cc_extension_id=None, keep_files=False, receiver=rtpbin_receiver, red=None):
    """Raises Unsupported when camrtp refuses its arguments. The receiver offers TWCC feedback
    on `transport_cc_extension_id` (the same for every sender of a case). `receiver` makes it,
    as rtpbin_receiver does; `red` (a REDFormat without in_rtx: the sender says that) has the
    tap unwrap RED."""
    session_dir = os.path.join(workdir, label)
    os.makedirs(session_dir, exist_ok=True)
    rtx_payload_type = sender.rtx_payload_type
    receiver_port = free_port_pair()
    failure, sender_result = None, {}
    if red is not None:
        red = REDFormat(red.red, red.ulpfec, in_rtx=getattr(sender, "rtx_carries_red", False))
    with RTPTap(("127.0.0.1", receiver_port), rtx_payload_type, red) as tap:
        with ImpairmentRelay(profile, tap.port, receiver_port + 1, session_dir, seed) as relay:
            with receiver(session_dir, receiver_port, relay.feedback_port, sender,
                          transport_cc_extension_id) as running_receiver:
                ports = SessionPorts(session_dir, "sender", clip, kbps, relay.rtp_port, relay.rtcp_port, profile)
                with sender.around(ports):
                    command = sender.command(ports)
                    try:
                        grace = sender.stop_grace_s
                        sender_result = measure(command, session_dir, "sender", interrupt_ok=grace is not None,
                                                timeout_s=clip_seconds + (grace or SENDER_TIMEOUT_MARGIN_S))
                    except ToolFailed as error:
                        refusal = sender.rejected(error)
                        if refusal:
                            raise Unsupported(refusal) from error
                        failure = str(error).splitlines()[0]
                sender_result.update(sender.collect(ports))
                time.sleep(DRAIN_AFTER_S + (profile.queue_ms or 0) / 1000)
            # the receiver has stopped and flushed its file
        relay_stats, relay_packets = relay.stats(), relay.packets()
    stream = StreamAnalysis(tap.packets, rtx_payload_type, relay_packets)
    psnr_by_index, decoded, unmatched = source.match(running_receiver.out)
    if not keep_files:
        for path in (running_receiver.out, relay.paths["csv"]):
            if os.path.exists(path):
                os.remove(path)
    return SessionOutcome(sender_result, relay_stats, relay_packets, tap.packets,
                          relay_origin(tap.packets, relay_packets), stream.report(),
                          psnr_by_index, decoded, unmatched, failure,
                          getattr(running_receiver, "figures", lambda: None)())


def relay_origin(tap_packets, relay_packets):
    """The relay's time 0 on CLOCK_MONOTONIC: the first packet the tap saw left the relay at
    the first lane-0 departure of the log (the hop from the relay to the tap is tens of us)."""
    departures = [p.departure_ns for p in relay_packets
                  if p.direction == "forward" and p.lane == 0 and p.outcome == "sent"]
    if not tap_packets or not departures:
        return None
    return tap_packets[0].arrival_ns - min(departures)
