#!/usr/bin/env python3
"""Captures the RTCP feedback GStreamer's rtpbin sends, for the byte vectors in Tests/RTCPTests.

Usage: capture-rtcp-feedback.py pli|fir

Starts a GStreamer 1.22 rtpbin receiver (NACK and PLI, or FIR instead of PLI, and transport-wide
congestion control through `extmap-3` in its caps), sends it 60 VP8-shaped RTP packets of inter
frames with a few gaps, and prints each RTCP datagram it sends back as a hex line. Transport-wide
sequence numbers start at 65530 and media sequence numbers at 65525, so that both wrap. Needs
only the standard library and gst-launch-1.0.
"""
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

TWCC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
SSRC = 0x11223344
DROPPED = {5, 7, 8, 20, 21, 22, 40}


def even_free_port():
    while True:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        if port % 2 == 0 and port < 65000:
            return port


def receiver_command(rtp_port, feedback_port, fir):
    caps = ("application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,payload=(int)96,"
            "rtcp-fb-nack-pli=(boolean)true" + (",rtcp-fb-ccm-fir=(boolean)true" if fir else "")
            + f',extmap-3=(string)"{TWCC_URI}"')
    return ["gst-launch-1.0", "rtpbin", "name=rb", "latency=200", "do-retransmission=true", "rtp-profile=avpf",
            "rtpsession0::bandwidth=250000",
            "udpsrc", f"port={rtp_port}", f"caps={caps}", "!", "rb.recv_rtp_sink_0",
            "udpsrc", f"port={rtp_port + 1}", "!", "rb.recv_rtcp_sink_0",
            "rb.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", f"port={feedback_port}",
            f"bind-port={rtp_port + 1}", "sync=false", "async=false",
            "rb.", "!", "rtpvp8depay", "request-keyframe=true", "wait-for-keyframe=true", "!", "fakesink"]


def rtp_packet(index):
    """Three packets per frame; a frame's first packet starts a VP8 partition of an inter frame."""
    marker = 0x80 if index % 3 == 2 else 0
    header = struct.pack("!BBHII", 0x90, marker | 96, (65525 + index) & 0xFFFF, index // 3 * 3000, SSRC)
    extension = struct.pack("!HHBH", 0xBEDE, 1, 0x31, (65530 + index) & 0xFFFF) + b"\x00"
    payload = (b"\x10\x01\x00\x00" if index % 3 == 0 else b"\x00") + bytes(100)
    return header + extension + payload


def main():
    feedback = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    feedback.bind(("127.0.0.1", 0))
    rtp_port = even_free_port()
    command = receiver_command(rtp_port, feedback.getsockname()[1], fir=sys.argv[1] == "fir")
    receiver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in receiver.stdout:
        if "PLAYING" in line:
            break
    os.set_blocking(receiver.stdout.fileno(), False)

    datagrams = []

    def collect(seconds):
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([feedback], [], [], left)[0]:
                datagrams.append(feedback.recv(2048))

    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for index in range(60):
        if index not in DROPPED:
            sender.sendto(rtp_packet(index), ("127.0.0.1", rtp_port))
        collect(0.011)
    collect(3.0)
    receiver.send_signal(signal.SIGINT)
    receiver.wait(timeout=10)
    for datagram in datagrams:
        print(datagram.hex())


if __name__ == "__main__":
    main()
