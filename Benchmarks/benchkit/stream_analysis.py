"""What reached the receiver, from the tap's packets and the relay's per-packet log.

Frame delay. A frame is complete at the receiver when every packet from its first (VP8 S=1,
PID=0) to its last (marker) has arrived, as the original or as a retransmission (a resend of
the same sequence number, or RTX carrying it as its OSN). Its delay is the arrival of the packet
that completed it minus its RTP timestamp (in seconds), less the smallest such value in the run:
the sender's clock offset, its encoding time and the path's fixed one-way delay cancel, and what
remains is how much later than the run's best frame a frame became decodable (queueing,
retransmission round trips, pacing, bursts). A jitter buffer must hold frames that long.

Retransmitted bytes. The relay counts what the sender sent; the tap sees what arrived. A media
packet that arrives after a higher sequence number (or again) is a retransmission, as is every
RTX packet (padding included). Of the packets the relay dropped, those not accounted for by
original media packets that never arrived as originals (their size known from a retransmitted
copy, else the mean) were retransmissions. Media bytes are the original packets' bytes.

FEC. ULPFEC packets in RED share the media's sequence numbers: they count as FEC bytes (as
they arrived: they lose the same share to the path as the media), not as media, and a frame
is complete without them. The tap cannot tell a lost FEC packet from a lost media packet, so
"lost" counts both."""

import math
import statistics

from .rtp_tap import TappedPacket

MEDIA_PAYLOAD_TYPE = 96
RTP_CLOCK_HZ = 90000


def unwrap(value, reference, bits):
    """`value` (modulo 2^bits) as the integer nearest to `reference`."""
    modulus, half = 1 << bits, 1 << (bits - 1)
    return reference + ((value - reference + half) % modulus) - half


def percentile(values, fraction):
    """Nearest rank, as the relay reports its percentiles."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * fraction) - 1)]


def media_ssrc(packets):
    counts = {}
    for packet in packets:
        if packet.payload_type == MEDIA_PAYLOAD_TYPE:
            counts[packet.ssrc] = counts.get(packet.ssrc, 0) + 1
    return max(counts, key=counts.get) if counts else None


class StreamAnalysis:
    def __init__(self, packets: list[TappedPacket], rtx_payload_type, relay_packets):
        self.ssrc = media_ssrc(packets)
        self.rtx_payload_type = rtx_payload_type
        self.first_copy = {}        # unwrapped sequence -> (arrival ns, packet) of its first arrival
        self.original_sizes = {}    # unwrapped sequence -> size of the original, when it arrived as one
        self.retransmitted_sizes = {}  # unwrapped sequence -> size of a retransmitted copy
        self.delivered_retransmission_bytes = 0
        self.delivered_retransmissions = 0
        self.rtx_padding = 0
        self.fec_bytes = 0
        self.fec_sequences = set()
        self.classify(packets)
        lane0 = [p for p in relay_packets if p.direction == "forward" and p.lane == 0]
        self.relay_dropped_bytes = sum(p.size for p in lane0 if p.outcome in ("loss", "queue"))
        self.relay_dropped = sum(1 for p in lane0 if p.outcome in ("loss", "queue"))

    def classify(self, packets):
        highest = None
        timestamp_base = None
        for packet in packets:
            if packet.ssrc == self.ssrc and (packet.payload_type == MEDIA_PAYLOAD_TYPE or packet.fec):
                sequence_16 = packet.sequence
                retransmitted_copy = False
            elif self.rtx_payload_type is not None and packet.payload_type == self.rtx_payload_type:
                self.delivered_retransmission_bytes += packet.size
                self.delivered_retransmissions += 1
                if packet.original_sequence is None:
                    self.rtx_padding += 1
                    continue
                sequence_16 = packet.original_sequence
                retransmitted_copy = True
            else:
                continue
            sequence = sequence_16 if highest is None else unwrap(sequence_16, highest, 16)
            if packet.fec:
                if not retransmitted_copy and sequence not in self.fec_sequences:
                    self.fec_sequences.add(sequence)
                    self.fec_bytes += packet.size
                    highest = sequence if highest is None else max(highest, sequence)
                elif not retransmitted_copy:
                    self.delivered_retransmission_bytes += packet.size
                    self.delivered_retransmissions += 1
                continue
            if not retransmitted_copy and (highest is None or sequence > highest):
                self.original_sizes[sequence] = packet.size
            elif not retransmitted_copy:
                self.delivered_retransmission_bytes += packet.size
                self.delivered_retransmissions += 1
                self.retransmitted_sizes.setdefault(sequence, packet.size)
            else:
                self.retransmitted_sizes.setdefault(sequence, packet.size - 2)
            if highest is None or sequence > highest:
                highest = sequence
            if timestamp_base is None:
                timestamp_base = packet.timestamp
            if sequence not in self.first_copy:
                timestamp = unwrap(packet.timestamp, timestamp_base, 32)
                self.first_copy[sequence] = (packet.arrival_ns, timestamp, packet)

    # --- frames ---------------------------------------------------------------------------

    def frames(self):
        """{RTP timestamp (unwrapped): (complete, completion arrival ns or None, keyframe)}."""
        frames = {}
        sequences = sorted(self.first_copy)
        present = self.first_copy
        for sequence in sequences:
            arrival, timestamp, packet = present[sequence]
            if not packet.frame_start:
                frames.setdefault(timestamp, (False, None, False))
                continue
            latest, cursor, complete = arrival, sequence, False
            while cursor in present and present[cursor][1] == timestamp:
                latest = max(latest, present[cursor][0])
                if present[cursor][2].marker:
                    complete = True
                    break
                cursor += 1
            frames[timestamp] = (complete, latest if complete else None, packet.keyframe)
        return frames

    def frame_delays_ms(self):
        """The delay of every complete frame above the run's smallest (see the module's doc)."""
        raw = [completion - timestamp * 1e9 / RTP_CLOCK_HZ
               for timestamp, (complete, completion, _) in self.frames().items() if complete]
        if not raw:
            return []
        best = min(raw)
        return [(value - best) / 1e6 for value in raw]

    # --- retransmissions ------------------------------------------------------------------

    def media_span(self):
        return (min(self.first_copy), max(self.first_copy)) if self.first_copy else (0, -1)

    def lost_originals(self):
        """Media sequence numbers whose original never arrived."""
        first, last = self.media_span()
        return [sequence for sequence in range(first, last + 1)
                if sequence not in self.original_sizes and sequence not in self.fec_sequences]

    def report(self):
        lost = self.lost_originals()
        mean_size = statistics.mean(self.original_sizes.values()) if self.original_sizes else 0
        lost_original_bytes = sum(self.retransmitted_sizes.get(sequence, mean_size) for sequence in lost)
        repaired = sum(1 for sequence in lost if sequence in self.first_copy)
        # Drops beyond the originals that never arrived were retransmissions (none for a sender
        # that never retransmitted: what is left then is the error of the mean-size estimate).
        lost_retransmission_bytes = 0.0
        if self.delivered_retransmissions and self.relay_dropped > len(lost):
            lost_retransmission_bytes = max(0.0, self.relay_dropped_bytes - lost_original_bytes)
        media_bytes = sum(self.original_sizes.values()) + lost_original_bytes
        frames = self.frames()
        delays = self.frame_delays_ms()
        return {
            "mediaPackets": len(self.original_sizes) + len(lost),
            "originalsLost": len(lost),
            "originalsRepaired": repaired,
            "mediaKB": media_bytes / 1000,
            "retransmittedKB": (self.delivered_retransmission_bytes + lost_retransmission_bytes) / 1000,
            "retransmittedPercent": 100 * (self.delivered_retransmission_bytes + lost_retransmission_bytes) / media_bytes
            if media_bytes else None,
            "retransmissionsDelivered": self.delivered_retransmissions,
            "fecKB": self.fec_bytes / 1000,
            "fecPercent": 100 * self.fec_bytes / sum(self.original_sizes.values()) if self.original_sizes else None,
            "rtxPaddingPackets": self.rtx_padding,
            "framesSeen": len(frames),
            "framesComplete": sum(1 for complete, _, _ in frames.values() if complete),
            "keyframesReceived": sum(1 for complete, _, keyframe in frames.values() if keyframe),
            "frameDelayP50Ms": percentile(delays, 0.50),
            "frameDelayP95Ms": percentile(delays, 0.95),
            "frameDelayMaxMs": max(delays) if delays else None,
        }
