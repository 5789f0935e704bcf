#!/usr/bin/python3
"""Makes the seed corpora of the fuzz targets in Fuzz/Corpus from real senders and encoders.

    Fuzz/make_seeds.py CAMRTP_BINARY [CORPUS...]

Makes every corpus, or only the ones named (rtp rtcp fec y4m mjpeg sdp stun dtls).

rtp, rtcp: camrtp, ffmpeg and GStreamer stream a small test pattern to sockets on 127.0.0.1; a
GStreamer receiver answers camrtp with receiver reports; aiortc's serializers add the RTCP
feedback packets (PLI, NACK, REMB) that none of them sends here. RTP seeds are frames as
length-prefixed records (see FuzzRecords.swift), RTCP seeds one datagram each.
fec: RED (RFC 2198) and ULPFEC (RFC 5109) packets from camrtp (--fec on) and from GStreamer's
rtpulpfecenc and rtpredenc, a frame's packets with the FEC after them, and a RED packet with a
redundant block, which neither sends.
y4m: ffmpeg's and GStreamer's Y4M writers, and headers they do not write (frame parameters,
odd sizes, NTSC rates, comments).
mjpeg: ffmpeg's and GStreamer's JPEG encoders in the chroma layouts cameras send, a frame
without Huffman tables (as many UVC cameras send them) and one frame of the fake camera.
sdp: camrtp's and ffmpeg's offers, and the Chromium, aiortc and Janus descriptions of
Tests/SDPTests/Fixtures.
stun: RFC 5769's sample messages, and aioice's ICE requests and responses (signed with RFC
5769's password, which the target checks MESSAGE-INTEGRITY with).
dtls: openssl s_client and s_server doing a DTLS-SRTP handshake through a relay here: the
client's datagrams for a session in the server role, the server's for one in the client role.
Needs Debian's python3-aiortc (with python3-aioice), ffmpeg, gst-launch-1.0 and openssl.
"""

import pathlib
import socket
import subprocess
import sys
import tempfile
import time

from aioice import stun as aioice_stun
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


def sdp_fixture_seeds(repository):
    """The real descriptions the SDP tests read: Chromium's, aiortc's and Janus's."""
    for fixture in sorted((repository / "Tests/SDPTests/Fixtures").glob("*.sdp")):
        write("sdp", fixture.stem, fixture.read_bytes())


# RFC 5769 section 2: sample messages with the short-term password below.
RFC5769_PASSWORD = b"VOkJxbRl1RmTxUk/WvJxBt"
RFC5769 = {
    "rfc5769-request": """
        00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04 6e 00 01 ff 80 29 00 08 93 2f f9 b1 51 26 3b 36
        00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04 e5 7a 3b cf""",
    "rfc5769-ipv4-response": """
        01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 08 00 01 a1 47 e1 12 a6 43
        00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
        80 28 00 04 c0 7d 4c 96""",
    "rfc5769-ipv6-response": """
        01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
        00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
        80 28 00 04 c8 fb 0b 4c""",
}


def stun_seeds():
    for name, text in RFC5769.items():
        write("stun", name, bytes.fromhex(" ".join(text.split())))
    transaction = bytes(range(1, 13))

    def message(method_class, attributes, sign=True):
        msg = aioice_stun.Message(
            message_method=aioice_stun.Method.BINDING, message_class=method_class, transaction_id=transaction)
        for name, value in attributes:
            msg.attributes[name] = value
        if sign:
            msg.add_message_integrity(RFC5769_PASSWORD)  # and FINGERPRINT
        return bytes(msg)

    write("stun", "aioice-request-controlling", message(aioice_stun.Class.REQUEST, [
        ("USERNAME", "remoteufrag:localufrag"), ("PRIORITY", 1853817087),
        ("ICE-CONTROLLING", 0x1122334455667788), ("USE-CANDIDATE", None)]))
    write("stun", "aioice-request-controlled", message(aioice_stun.Class.REQUEST, [
        ("USERNAME", "a:b"), ("PRIORITY", 2130706431), ("ICE-CONTROLLED", 0x8877665544332211)]))
    write("stun", "aioice-success-ipv6", message(aioice_stun.Class.RESPONSE, [
        ("XOR-MAPPED-ADDRESS", ("2001:db8::1", 40000))]))
    write("stun", "aioice-error-role-conflict", message(aioice_stun.Class.ERROR, [
        ("ERROR-CODE", (487, "Role Conflict"))]))
    write("stun", "aioice-indication", message(aioice_stun.Class.INDICATION, [], sign=False))


def dtls_seeds():
    """openssl s_client and s_server handshake through a relay that keeps each side's datagrams."""
    with tempfile.TemporaryDirectory() as directory:
        certificate, key = f"{directory}/peer.crt", f"{directory}/peer.key"
        run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-subj", "/CN=peer", "-days", "2", "-keyout", key, "-out", certificate])
        server_port, relay_port = 41030, 41031
        common = ["-dtls1_2", "-mtu", "1200", "-use_srtp", "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80",
                  "-cert", certificate, "-key", key]
        server = subprocess.Popen(
            ["openssl", "s_server", "-accept", f"127.0.0.1:{server_port}", "-verify", "1", *common],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        relay = bind(relay_port)
        upstream = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        upstream.bind(("127.0.0.1", 0))
        upstream.settimeout(0.2)
        time.sleep(1)
        client = subprocess.Popen(
            ["openssl", "s_client", "-connect", f"127.0.0.1:{relay_port}", *common],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from_client, from_server, client_address = [], [], None
        deadline = time.monotonic() + 5
        try:
            while time.monotonic() < deadline:
                try:
                    datagram, client_address = relay.recvfrom(65536)
                    from_client.append(datagram)
                    upstream.sendto(datagram, ("127.0.0.1", server_port))
                except socket.timeout:
                    pass
                try:
                    datagram = upstream.recv(65536)
                    from_server.append(datagram)
                    relay.sendto(datagram, client_address)
                except socket.timeout:
                    pass
        finally:
            for process in (client, server):
                process.terminate()
                process.wait(timeout=10)
            relay.close()
            upstream.close()
    # Role byte: even for a session in the server role, odd for the client role.
    write("dtls", "openssl-client-hello", b"\x00" + records(from_client[:1]))
    write("dtls", "openssl-client-flights", b"\x00" + records(from_client))
    write("dtls", "openssl-server-flights", b"\x01" + records(from_server))


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
    corpora = ["rtp", "rtcp", "fec", "y4m", "mjpeg", "sdp", "stun", "dtls"]
    if len(sys.argv) < 2 or any(name not in corpora for name in sys.argv[2:]):
        sys.exit(__doc__)
    camrtp = sys.argv[1]
    wanted = sys.argv[2:] or corpora
    repository = CORPUS.parent.parent
    if "y4m" in wanted:
        y4m_seeds()
    if "sdp" in wanted:
        sdp_seeds(camrtp)
        sdp_fixture_seeds(repository)
    if "mjpeg" in wanted:
        mjpeg_seeds(repository)
    if "stun" in wanted:
        stun_seeds()
    if "dtls" in wanted:
        dtls_seeds()
    if "rtp" in wanted or "rtcp" in wanted:
        network_seeds(camrtp)
    if "fec" in wanted:
        fec_seeds(camrtp)


def network_seeds(camrtp):
    """RTP and RTCP from camrtp, ffmpeg and GStreamer, and aiortc's RTCP feedback."""
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


def fec_seeds(camrtp):
    """camrtp's and GStreamer's RED + ULPFEC: a keyframe's packets and its FEC, then two frames."""
    width, height = SIZE
    port = 41000
    got = capture([
        camrtp, "send", "--source", f"testsrc:{width}x{height}@{FPS}", "--duration", "3", "--to", f"127.0.0.1:{port}",
        "--ssrc", "0x11223344", "--fec", "on", "--bitrate", "300"], [port], 15)
    write_fec_seeds("camrtp", got[port])
    gstreamer = (
        f"videotestsrc is-live=true num-buffers={3 * FPS} ! video/x-raw,width={width},height={height},framerate={FPS}/1 "
        "! vp8enc deadline=1 ! rtpvp8pay picture-id-mode=15-bit pt=96 ! rtpulpfecenc pt=98 percentage=50 "
        f"! rtpredenc pt=97 allow-no-red-blocks=true ! udpsink host=127.0.0.1 port={port}")
    got = capture(["gst-launch-1.0", "-q", *gstreamer.split()], [port], 15)
    write_fec_seeds("gstreamer", got[port])
    # RFC 2198 section 3's layout: one redundant block (payload type 96, 160 ticks back, 3 bytes),
    # then the primary block (payload type 98, ULPFEC) in a RED packet of payload type 97.
    header = bytes([0x80, 97, 0, 1, 0, 0, 0x0F, 0xA0, 0x11, 0x22, 0x33, 0x44])
    redundant = bytes([0x80 | 96, (160 >> 6) & 0xFF, ((160 & 0x3F) << 2) | 0, 3])
    fec = bytes([0x00, 96, 0, 1, 0, 0, 0, 0, 0, 4, 0, 4, 0x80, 0]) + b"\x01\x02\x03\x04"
    write("fec", "red-with-a-redundant-block", records([header + redundant + bytes([98]) + b"abc" + fec]))


def write_fec_seeds(sender, packets):
    grouped = [group for group in frames(packets) if group]
    write("fec", f"{sender}-keyframe-and-fec", records(grouped[0]))
    write("fec", f"{sender}-two-frames", records(grouped[2] + grouped[3]))


if __name__ == "__main__":
    main()
