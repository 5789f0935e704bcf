"""An RTP tap in front of the receiver: it forwards every datagram at once and notes when it
arrived (CLOCK_MONOTONIC) and what it carried, so that frame completion times and
retransmissions can be measured the same way for every sender. With RED (RFC 2198) it notes
what the primary block carries: a media packet, or an ULPFEC packet (RFC 5109)."""

import dataclasses
import struct
import time

from .datagram_worker import DatagramWorker

RECEIVE_BUFFER_BYTES = 4 << 20


@dataclasses.dataclass(frozen=True)
class REDFormat:
    """RED's and ULPFEC's payload types; `in_rtx`: RTX packets carry RED (the repair of a RED
    packet, as GStreamer's rtprtxsend after rtpredenc sends it) rather than the media itself."""
    red: int
    ulpfec: int
    in_rtx: bool = False


@dataclasses.dataclass(frozen=True)
class TappedPacket:
    arrival_ns: int           # CLOCK_MONOTONIC, as time.monotonic_ns()
    size: int                 # the UDP payload, as the relay counts it
    payload_type: int
    sequence: int             # this packet's own sequence number
    timestamp: int
    ssrc: int
    marker: bool
    original_sequence: int | None  # RTX (RFC 4588): the OSN; None for media or a payload too short
    frame_start: bool | None  # VP8 descriptor S=1 with PID=0; None when there is no VP8 payload
    keyframe: bool            # first packet of a VP8 keyframe
    fec: bool = False         # an ULPFEC packet (in RED)


def parse_rtp(data, arrival_ns, rtx_payload_type, red=None):
    """The fields the analysis needs, or None for anything that is not RTP version 2. A RED
    packet is noted with its primary block's payload type."""
    if len(data) < 12 or data[0] >> 6 != 2:
        return None
    first, second = data[0], data[1]
    sequence, timestamp, ssrc = struct.unpack_from("!HII", data, 2)
    offset = 12 + 4 * (first & 0x0F)
    if first & 0x10:
        if len(data) < offset + 4:
            return None
        offset += 4 + 4 * struct.unpack_from("!H", data, offset + 2)[0]
    end = len(data)
    if first & 0x20 and end > offset:
        end -= data[-1]
    payload_type = second & 0x7F
    original_sequence = None
    if payload_type == rtx_payload_type:
        if end - offset < 2:
            return TappedPacket(arrival_ns, len(data), payload_type, sequence, timestamp, ssrc,
                                bool(second & 0x80), None, None, False)
        original_sequence = struct.unpack_from("!H", data, offset)[0]
        offset += 2
    if red is not None and (payload_type == red.red or (original_sequence is not None and red.in_rtx)):
        inner, offset = red_primary_block(data, offset, end)
        if inner is None:
            return None
        if payload_type == red.red:
            payload_type = inner
        if inner == red.ulpfec:
            return TappedPacket(arrival_ns, len(data), payload_type, sequence, timestamp, ssrc,
                                bool(second & 0x80), original_sequence, None, False, fec=True)
    frame_start, keyframe = vp8_frame_start(data, offset, end)
    return TappedPacket(arrival_ns, len(data), payload_type, sequence, timestamp, ssrc,
                        bool(second & 0x80), original_sequence, frame_start, keyframe)


def red_primary_block(data, offset, end):
    """(payload type, offset) of a RED payload's primary block (RFC 2198 section 3): past the
    4-byte headers of redundant blocks (F = 1), their data, and the primary's 1-byte header."""
    redundant = 0
    while offset < end and data[offset] & 0x80:
        if offset + 4 > end:
            return None, offset
        redundant += struct.unpack_from("!H", data, offset + 2)[0] & 0x3FF
        offset += 4
    if offset >= end:
        return None, offset
    return data[offset] & 0x7F, offset + 1 + redundant


def vp8_frame_start(data, offset, end):
    """(S=1 and PID=0, keyframe) from an RFC 7741 payload descriptor and the VP8 header."""
    if end <= offset:
        return None, False
    descriptor = data[offset]
    start = bool(descriptor & 0x10) and descriptor & 0x07 == 0
    position = offset + 1
    if descriptor & 0x80:
        if position >= end:
            return None, False
        extension = data[position]
        position += 1
        if extension & 0x80:
            if position >= end:
                return None, False
            position += 2 if data[position] & 0x80 else 1
        if extension & 0x40:
            position += 1
        if extension & 0x30:
            position += 1
    keyframe = start and position < end and data[position] & 0x01 == 0
    return start, keyframe


class RTPTap(DatagramWorker):
    """Listens on 127.0.0.1 (any free port: `port`) and forwards to `destination` on its own
    thread. Keeps every packet in `packets`."""

    def __init__(self, destination, rtx_payload_type=None, red=None):
        super().__init__("rtp-tap", RECEIVE_BUFFER_BYTES)
        self.destination = destination
        self.rtx_payload_type = rtx_payload_type
        self.red = red
        self.packets = []
        self.unparsed = 0

    def drain(self):
        for data, _ in self.datagrams():
            now = time.monotonic_ns()
            try:
                self.socket.sendto(data, self.destination)
            except OSError:
                pass  # the receiver is not there yet or has gone: the packet is noted all the same
            packet = parse_rtp(data, now, self.rtx_payload_type, self.red)
            if packet is None:
                self.unparsed += 1
            else:
                self.packets.append(packet)
