#!/usr/bin/python3
"""Makes the seed corpora of the fuzz targets in Fuzz/Corpus from real senders and encoders.

    Fuzz/make_seeds.py CAMRTP_BINARY

rtp, rtcp: camrtp, ffmpeg and GStreamer stream a small test pattern to sockets on 127.0.0.1; a
GStreamer receiver answers camrtp with receiver reports; aiortc's serializers add the RTCP
feedback packets (PLI, NACK, REMB) that none of them sends here. RTP seeds are frames as
length-prefixed records (see FuzzRecords.swift), RTCP seeds one datagram each.
y4m: ffmpeg's and GStreamer's Y4M writers, and headers they do not write (frame parameters,
odd sizes, NTSC rates, comments).
mjpeg: ffmpeg's and GStreamer's JPEG encoders in the chroma layouts cameras send, a frame
without Huffman tables (as many UVC cameras send them) and one frame of the fake camera.
sdp (for the SDP reader to come; no target reads them yet): camrtp's and ffmpeg's offers.
Needs Debian's python3-aiortc, ffmpeg and gst-launch-1.0.
"""

import pathlib
import socket
import subprocess
import sys
import time

from aiortc import rtp as aiortc_rtp

CORPUS = pathlib.Path(__file__).resolve().parent / "Corpus"
SIZE = (160, 120)
FPS = 15


def bind(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))
    sock.settimeout(0.2)
    return sock


def capture(command, ports, seconds):
    """Runs `command` for at most `seconds` and returns the datagrams that reached each port."""
    sockets = {port: bind(port) for port in ports}
    received = {port: [] for port in ports}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline and (process.poll() is None or any(pending(s) for s in sockets.values())):
            for port, sock in sockets.items():
                try:
                    while True:
                        received[port].append(sock.recv(65536))
                except (socket.timeout, BlockingIOError):
                    pass
    finally:
        process.terminate()
        process.wait(timeout=10)
        for sock in sockets.values():
            sock.close()
    return received


def pending(sock):
    sock.setblocking(False)
    try:
        sock.recv(65536, socket.MSG_PEEK)
        return True
    except BlockingIOError:
        return False
    finally:
        sock.settimeout(0.2)


def frames(packets):
    """RTP packets grouped by timestamp, in arrival order."""
    grouped = []
    for packet in packets:
        timestamp = packet[4:8]
        if grouped and grouped[-1][0] == timestamp:
            grouped[-1][1].append(packet)
        else:
            grouped.append((timestamp, [packet]))
    return [group for _, group in grouped]


def records(packets):
    return b"".join(len(packet).to_bytes(2, "big") + packet for packet in packets)


def write(folder, name, data):
    path = CORPUS / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_rtp_seeds(sender, packets):
    grouped = [group for group in frames(packets) if group]
    # The first packets of the first (key) frame, then two whole frames.
    write("rtp", f"{sender}-keyframe-start", records(grouped[0][:3]))
    write("rtp", f"{sender}-two-frames", records(grouped[2] + grouped[3]))


def write_rtcp_seeds(sender, datagrams):
    seen = set()
    for datagram in datagrams:
        types = tuple(datagram[offset + 1] for offset in packet_offsets(datagram))
        if types in seen:
            continue
        seen.add(types)
        write("rtcp", f"{sender}-" + "-".join(str(t) for t in types), datagram)


def packet_offsets(datagram):
    offset = 0
    while offset + 4 <= len(datagram):
        yield offset
        offset += 4 * (int.from_bytes(datagram[offset + 2:offset + 4], "big") + 1)


def run(command):
    return subprocess.run(command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout


def ffmpeg_encode(source, *options):
    return run(["ffmpeg", "-nostdin", "-f", "lavfi", "-i", source, *options, "-"])


def gstreamer_encode(pipeline):
    return run(["gst-launch-1.0", "-q", *pipeline.split(), "!", "fdsink", "fd=1"])


def y4m_seeds():
    ffmpeg_y4m = ("-frames:v", "2", "-f", "yuv4mpegpipe")
    write("y4m", "ffmpeg-420jpeg", ffmpeg_encode("testsrc=size=8x6:rate=25", "-pix_fmt", "yuv420p", *ffmpeg_y4m))
    write("y4m", "ffmpeg-mono", ffmpeg_encode("testsrc=size=8x6:rate=25", "-pix_fmt", "gray", *ffmpeg_y4m))
    write("y4m", "gstreamer-420", gstreamer_encode(
        "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=8,height=6,framerate=30/1 ! y4menc"))
    frame = bytes(range(7 * 5 + 2 * 4 * 3))
    write("y4m", "frame-parameters-odd-size",
          b"YUV4MPEG2 W7 H5 F30000:1001 I? A0:0 C420paldv XCOMMENT=seed\n" + b"FRAME Ixyz\n" + frame + b"FRAME\n" + frame)
    write("y4m", "unknown-rate-420mpeg2", b"YUV4MPEG2 H2 W2 F0:1 C420mpeg2\nFRAME\n" + bytes(6))


def mjpeg_seeds(repository):
    source = "testsrc=size=32x24:rate=1"
    for layout in ("yuvj420p", "yuvj422p", "yuvj444p"):
        write("mjpeg", f"ffmpeg-{layout}", ffmpeg_encode(source, "-frames:v", "1", "-pix_fmt", layout, "-f", "mjpeg"))
    default_tables = ffmpeg_encode(source, "-frames:v", "1", "-pix_fmt", "yuvj422p", "-huffman", "0", "-f", "mjpeg")
    write("mjpeg", "ffmpeg-yuvj422p-without-huffman-tables", without_segment(default_tables, 0xC4))
    for layout in ("I420", "GRAY8"):
        write("mjpeg", f"gstreamer-{layout.lower()}", gstreamer_encode(
            f"videotestsrc num-buffers=1 ! video/x-raw,format={layout},width=32,height=24 ! jpegenc"))
    fixture = repository / "Sources/Capture/V4L2/Fixtures/pattern-640x480-0.jpg"
    write("mjpeg", "fake-camera-640x480", fixture.read_bytes())


def without_segment(jpeg, marker):
    """`jpeg` without its marker segments of type 0xFF `marker`, such as the DHT tables (0xC4)."""
    output, offset = bytearray(jpeg[:2]), 2
    while offset + 4 <= len(jpeg) and jpeg[offset] == 0xFF and jpeg[offset + 1] != 0xDA:
        end = offset + 2 + int.from_bytes(jpeg[offset + 2:offset + 4], "big")
        if jpeg[offset + 1] != marker:
            output += jpeg[offset:end]
        offset = end
    return bytes(output + jpeg[offset:])


def sdp_seeds(camrtp):
    base = [camrtp, "sdp", "--to", "127.0.0.1:5004", "--ssrc", "0x11223344"]
    write("sdp", "camrtp-plain", run(base))
    key = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNk"
    write("sdp", "camrtp-srtp-extensions-rtcp-mux",
          run([*base, "--srtp-key", key, "--cvo", "--abs-send-time", "--rtcp-mux"]))
    write("sdp", "ffmpeg-vp8", run([
        "ffmpeg", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15", "-frames:v", "1",
        "-c:v", "libvpx", "-f", "rtp", "-sdp_file", "/dev/stdout", "rtp://127.0.0.1:5004"]))


def aiortc_seeds():
    ssrc, media = 0x11223344, 0x55667788
    report = aiortc_rtp.RtcpReceiverInfo(
        ssrc=media, fraction_lost=12, packets_lost=3, highest_sequence=70000, jitter=45, lsr=0x12345678, dlsr=655)
    sdes = aiortc_rtp.RtcpSdesPacket(chunks=[aiortc_rtp.RtcpSourceInfo(ssrc=ssrc, items=[(1, b"receiver@aiortc")])])
    seeds = {
        "rr-sdes": [aiortc_rtp.RtcpRrPacket(ssrc=ssrc, reports=[report]), sdes],
        "sr-two-reports": [
            aiortc_rtp.RtcpSrPacket(
                ssrc=ssrc,
                sender_info=aiortc_rtp.RtcpSenderInfo(
                    ntp_timestamp=0xE1234567_89ABCDEF, rtp_timestamp=90000, packet_count=100, octet_count=120000),
                reports=[report, report]),
            sdes,
        ],
        "rr-pli": [
            aiortc_rtp.RtcpRrPacket(ssrc=ssrc, reports=[]),
            aiortc_rtp.RtcpPsfbPacket(fmt=aiortc_rtp.RTCP_PSFB_PLI, ssrc=ssrc, media_ssrc=media, fci=b""),
        ],
        "rr-nack": [
            aiortc_rtp.RtcpRrPacket(ssrc=ssrc, reports=[report]),
            aiortc_rtp.RtcpRtpfbPacket(
                fmt=aiortc_rtp.RTCP_RTPFB_NACK, ssrc=ssrc, media_ssrc=media, lost=[1000, 1001, 1003, 1016, 1017, 1200]),
        ],
        "rr-remb": [
            aiortc_rtp.RtcpRrPacket(ssrc=ssrc, reports=[]),
            aiortc_rtp.RtcpPsfbPacket(
                fmt=aiortc_rtp.RTCP_PSFB_APP, ssrc=ssrc, media_ssrc=0,
                fci=aiortc_rtp.pack_remb_fci(1_500_000, [media])),
        ],
        "bye-two-sources": [aiortc_rtp.RtcpByePacket(sources=[ssrc, media])],
    }
    for name, packets in seeds.items():
        write("rtcp", f"aiortc-{name}", b"".join(bytes(packet) for packet in packets))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    camrtp = sys.argv[1]
    width, height = SIZE
    rtp_port, rtcp_port, answer_port = 41000, 41001, 41010

    def camrtp_send(port, seconds):
        return [
            camrtp, "send", "--source", f"testsrc:{width}x{height}@{FPS}", "--duration", str(seconds),
            "--to", f"127.0.0.1:{port}", "--ssrc", "0x11223344", "--cvo", "--rotation", "90", "--abs-send-time",
            "--bitrate", "300"]

    got = capture(camrtp_send(rtp_port, 3), [rtp_port, rtcp_port], 15)
    write_rtp_seeds("camrtp", got[rtp_port])
    write_rtcp_seeds("camrtp", got[rtcp_port])

    ffmpeg = [
        "ffmpeg", "-nostdin", "-re", "-f", "lavfi", "-i", f"testsrc=size={width}x{height}:rate={FPS}", "-t", "3",
        "-c:v", "libvpx", "-deadline", "realtime", "-b:v", "300k", "-f", "rtp", f"rtp://127.0.0.1:{rtp_port}"]
    got = capture(ffmpeg, [rtp_port, rtcp_port], 15)
    write_rtp_seeds("ffmpeg", got[rtp_port])
    write_rtcp_seeds("ffmpeg", got[rtcp_port])

    gstreamer = (
        f"rtpbin name=b videotestsrc is-live=true num-buffers={3 * FPS} "
        f"! video/x-raw,width={width},height={height},framerate={FPS}/1 ! vp8enc deadline=1 "
        f"! rtpvp8pay picture-id-mode=15-bit ! b.send_rtp_sink_0 "
        f"b.send_rtp_src_0 ! udpsink host=127.0.0.1 port={rtp_port} "
        f"b.send_rtcp_src_0 ! udpsink host=127.0.0.1 port={rtcp_port} sync=false async=false")
    got = capture(["gst-launch-1.0", "-q", *gstreamer.split()], [rtp_port, rtcp_port], 15)
    write_rtp_seeds("gstreamer", got[rtp_port])
    write_rtcp_seeds("gstreamer", got[rtcp_port])

    # A GStreamer receiver of camrtp's stream sends its receiver reports to answer_port.
    receiver_rtp, receiver_rtcp = 41020, 41021
    receiver = (
        f"rtpbin name=b udpsrc address=127.0.0.1 port={receiver_rtp} "
        "caps=application/x-rtp,media=video,encoding-name=VP8,clock-rate=90000,payload=96 ! b.recv_rtp_sink_0 "
        "b. ! rtpvp8depay ! fakesink "
        f"udpsrc address=127.0.0.1 port={receiver_rtcp} ! b.recv_rtcp_sink_0 "
        f"b.send_rtcp_src_0 ! udpsink host=127.0.0.1 port={answer_port} sync=false async=false")
    gst_receiver = subprocess.Popen(["gst-launch-1.0", "-q", *receiver.split()], stdout=subprocess.DEVNULL)
    try:
        time.sleep(1)
        got = capture(camrtp_send(receiver_rtp, 8), [answer_port], 20)
    finally:
        gst_receiver.terminate()
        gst_receiver.wait(timeout=10)
    write_rtcp_seeds("gstreamer-receiver", got[answer_port])

    aiortc_seeds()
    y4m_seeds()
    sdp_seeds(camrtp)
    mjpeg_seeds(CORPUS.parent.parent)


if __name__ == "__main__":
    main()
