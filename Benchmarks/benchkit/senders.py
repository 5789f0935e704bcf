"""The senders a closed-loop case compares: camrtp (its feedback options probed, so that a build
without them gives a "not supported by this build" row), the GStreamer anchor with NACK -> RTX
and PLI -> keyframe (rtpbin + rtprtxsend), and ffmpeg, which never listens (open loop).

Every sender sends RTP to the relay's lane 0 and RTCP to its lane 1, and reads its feedback
from the address it sends RTCP from (symmetric RTP): the relay answers there."""

import contextlib
import json
import os
import re
import subprocess

from .encoder_settings import ffmpeg_vp8_args, gst_vp8enc
from .ports import free_port, free_port_pair
from .rtcp_forwarder import RTCPForwarder

MEDIA_PAYLOAD_TYPE = 96
DEFAULT_RTX_PAYLOAD_TYPE = 97
MTU = 1200
TRANSPORT_CC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"


class Unsupported(Exception):
    """This camrtp build does not take an option a row needs."""


class SessionPorts:
    """What a sender needs to know of one session."""

    def __init__(self, workdir, label, clip, kbps, rtp_port, rtcp_port, profile=None):
        self.workdir, self.label, self.clip, self.kbps = workdir, label, clip, kbps
        self.rtp_port, self.rtcp_port = rtp_port, rtcp_port
        self.profile = profile  # the path (LinkProfile): a sender may match its FEC to the loss

    def path(self, suffix):
        return os.path.join(self.workdir, f"{self.label}.{suffix}")


class CamrtpBuild:
    """The options this camrtp binary takes, read once from `camrtp send --help`."""

    def __init__(self, binary):
        self.binary = binary
        self._send_options = None
        self._sdps = {}
        self._sdp_options = None

    @property
    def send_options(self):
        if self._send_options is None:
            self._send_options = self.options_of("send")
        return self._send_options

    def options_of(self, subcommand):
        help_text = subprocess.run([self.binary, subcommand, "--help"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True).stdout
        return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text))

    def missing(self, args):
        """The options among `args` (name or name=value) that this build does not take."""
        return [arg.split("=")[0] for arg in args if arg.startswith("--") and arg.split("=")[0] not in self.send_options]

    def sdp(self, stream_args):
        """What `camrtp sdp` says for these stream arguments ("" when it refuses them)."""
        if self._sdp_options is None:
            self._sdp_options = self.options_of("sdp")
        groups = option_groups(stream_args)
        key = tuple(arg for group in groups if group[0].split("=")[0] in self._sdp_options for arg in group)
        if key not in self._sdps:
            completed = subprocess.run([self.binary, "sdp", "--to", "127.0.0.1:5004"] + list(key),
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self._sdps[key] = completed.stdout if completed.returncode == 0 else ""
        return self._sdps[key]

    def rtx_payload_type(self, stream_args):
        """The RTX payload type announced with `stream_args` (a=fmtp:<pt> apt=96); 97 when the
        SDP does not say."""
        match = re.search(rf"a=fmtp:(\d+) apt={MEDIA_PAYLOAD_TYPE}\b", self.sdp(stream_args))
        return int(match.group(1)) if match else DEFAULT_RTX_PAYLOAD_TYPE

    def transport_cc_extension_id(self, stream_args=()):
        """The header extension id of transport-wide sequence numbers, or None without them."""
        match = re.search(rf"a=extmap:(\d+)(?:/\w+)? {re.escape(TRANSPORT_CC_URI)}", self.sdp(stream_args))
        return int(match.group(1)) if match else None


def option_groups(args):
    """[["--option", value...], ...]: each option with the arguments up to the next option."""
    groups = []
    for arg in args:
        if arg.startswith("--") or not groups:
            groups.append([arg])
        else:
            groups[-1].append(arg)
    return groups


class CamrtpSender:
    """camrtp send with the case's common arguments, the row's own `args` (the build must take
    every option in them, or the row is "not supported by this build") and `optional` groups,
    each used only when the build takes its option. Placeholders in arguments: {trace} (a CSV
    path for --trace-bwe), {local_port} (a free even port)."""

    is_camrtp = True
    stop_grace_s = None  # ends by itself at the end of the clip

    def __init__(self, build, name, base_args, args=(), optional=()):
        self.build, self.name = build, name
        self.base_args, self.args = list(base_args), list(args)
        self.optional = [list(group) for group in optional]
        self.unsupported = None
        missing = build.missing(self.base_args + self.args)
        if missing:
            self.unsupported = f"camrtp send has no {', '.join(missing)}"
        self.used_optional = [group for group in self.optional if not build.missing(group)]
        self.stream_args = self.base_args + self.args + [arg for group in self.used_optional for arg in group]

    @property
    def sdp_args(self):
        """The arguments that shape the session description (options with placeholders left out)."""
        return [arg for group in option_groups(self.stream_args) if not any("{" in arg for arg in group) for arg in group]

    @property
    def rtx_payload_type(self):
        """None unless this row retransmits on an RTX stream (--retransmit rtx)."""
        args = self.stream_args
        if not any(a == "--retransmit" and b == "rtx" for a, b in zip(args, args[1:])) \
                and "--retransmit=rtx" not in args:
            return None
        return self.build.rtx_payload_type(self.sdp_args)

    @property
    def transport_cc_extension_id(self):
        return None if self.unsupported else self.build.transport_cc_extension_id(self.sdp_args)

    def description(self):
        shown = {"trace": "BWE.csv", "local_port": "PORT"}
        extra = " ".join(arg.format(**shown) for arg in self.args + [arg for group in self.used_optional for arg in group])
        skipped = [group[0] for group in self.optional if group not in self.used_optional]
        text = f"camrtp send {' '.join(self.base_args)} {extra}".strip()
        return text + (f"  (this build has no {', '.join(skipped)})" if skipped else "")

    def command(self, session):
        placeholders = {"trace": session.path("bwe.csv"), "local_port": free_port_pair()}
        args = [arg.format(**placeholders) for arg in self.stream_args]
        return [self.build.binary, "send", "--source", f"y4m:{session.clip}",
                "--to", f"127.0.0.1:{session.rtp_port}", "--rtcp-port", str(session.rtcp_port),
                "--stats-json", session.path("stats.json")] + args

    def around(self, session):
        """camrtp reads its feedback where it sends RTCP from: nothing in between."""
        return contextlib.nullcontext()

    def rejected(self, failure):
        """A usage error (exit status 2) means the build refused an argument."""
        if failure.returncode == 2:
            lines = [line for line in failure.output.splitlines() if line.strip()]
            return lines[-1] if lines else "camrtp refused its arguments"
        return None

    def collect(self, session):
        result = {}
        stats_path = session.path("stats.json")
        if os.path.exists(stats_path):
            with open(stats_path) as f:
                stats = json.load(f)
            result["senderStats"] = stats
            for key in ("framesEncoded", "keyframes", "packetsSent", "bytesSent"):
                if key in stats:
                    result[f"sender.{key}"] = stats[key]
        trace = session.path("bwe.csv")
        if os.path.exists(trace):
            result["bweTracePath"] = trace
        return result


class GStreamerAnchor:
    """vp8enc (camrtp's settings) ! rtpvp8pay ! rtprtxsend ! rtpbin, with the RTCP port bound for
    the feedback: NACKs are answered on RTX (payload type 97), PLIs with a keyframe."""

    is_camrtp = False
    name = "gstreamer rtx"
    # At the end of the file it usually reaches EOS and exits, but not always: under heavy loss
    # rtpbin was seen to keep the pipeline (and its RTCP) going. It is stopped with SIGINT once
    # the clip has had this long to finish.
    stop_grace_s = 5
    transport_cc_extension_id = None
    rtx_payload_type = DEFAULT_RTX_PAYLOAD_TYPE
    unsupported = None

    def description(self):
        return ("gst-launch-1.0 rtpbin rtp-profile=avpf  filesrc ! y4mdec ! clocksync ! vp8enc (matched) ! "
                "rtpvp8pay pt=96 mtu=1200 ! rtprtxsend payload-type-map=96:97 max-size-time=2000 ! rtpbin ! udpsink; "
                "RTCP out through a forwarder that passes the feedback to udpsrc ! rtpbin")

    def around(self, session):
        """The forwarder its RTCP goes through (see rtcp_forwarder)."""
        session.feedback_port = free_port()
        forwarder = RTCPForwarder(session.rtcp_port, session.feedback_port)
        session.rtcp_out_port = forwarder.port
        return forwarder

    def command(self, session):
        feedback_port = session.feedback_port
        pt_map = f"application/x-rtp-pt-map,{MEDIA_PAYLOAD_TYPE}=(uint){self.rtx_payload_type}"
        return (["gst-launch-1.0", "rtpbin", "name=rb", "rtp-profile=avpf",
                 "filesrc", f"location={session.clip}", "!", "y4mdec", "!", "clocksync", "!"]
                + gst_vp8enc(session.kbps, "matched")
                + ["!", "rtpvp8pay", f"pt={MEDIA_PAYLOAD_TYPE}", f"mtu={MTU}", "!",
                   "rtprtxsend", f"payload-type-map={pt_map}", "max-size-time=2000", "!", "rb.send_rtp_sink_0",
                   "rb.send_rtp_src_0", "!", "udpsink", "host=127.0.0.1", f"port={session.rtp_port}",
                   "sync=false", "async=false",
                   "rb.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", f"port={session.rtcp_out_port}",
                   "sync=false", "async=false",
                   "udpsrc", f"port={feedback_port}", "!", "rb.recv_rtcp_sink_0"])

    def rejected(self, failure):
        return None

    def collect(self, session):
        return {}


class FfmpegSender:
    """ffmpeg -re ... -f rtp, camrtp's encoder settings: it reads no feedback (open loop)."""

    is_camrtp = False
    name = "ffmpeg"
    stop_grace_s = None
    transport_cc_extension_id = None
    rtx_payload_type = None
    unsupported = None

    def around(self, session):
        return contextlib.nullcontext()

    def description(self):
        return "ffmpeg -re -i CLIP -c:v libvpx (matched) -f rtp -payload_type 96 rtp://RELAY?pkt_size=1200&rtcpport=RELAY_RTCP"

    def command(self, session):
        return (["ffmpeg", "-nostdin", "-re", "-i", session.clip, "-an"] + ffmpeg_vp8_args(session.kbps, "matched")
                + ["-f", "rtp", "-payload_type", str(MEDIA_PAYLOAD_TYPE),
                   f"rtp://127.0.0.1:{session.rtp_port}?pkt_size={MTU}&rtcpport={session.rtcp_port}"])

    def rejected(self, failure):
        return None

    def collect(self, session):
        return {}


class GStreamerFECAnchor(GStreamerAnchor):
    """The anchor with FEC, as GStreamer's WebRTC sender (webrtcbin) builds it: rtpvp8pay !
    rtpulpfecenc ! rtpredenc ! rtprtxsend ! rtpbin; RTX then carries RED packets (apt = RED).
    `percentages(loss)` gives rtpulpfecenc's FEC percentage for delta frames and for keyframes
    (its `percentage` and `percentage-important`) on a path with that loss."""

    name = "gstreamer rtx+fec"
    rtx_carries_red = True

    def __init__(self, red, ulpfec, rtx_payload_type, percentages):
        self.red, self.ulpfec, self.rtx_payload_type = red, ulpfec, rtx_payload_type
        self.percentages = percentages

    def description(self):
        return (f"gst-launch-1.0 rtpbin rtp-profile=avpf  filesrc ! y4mdec ! clocksync ! vp8enc (matched) ! "
                f"rtpvp8pay pt=96 mtu={MTU - 1} ! rtpulpfecenc pt={self.ulpfec} percentage=P percentage-important=K ! "
                f"rtpredenc pt={self.red} ! rtprtxsend payload-type-map={self.red}:{self.rtx_payload_type} "
                "max-size-time=2000 ! rtpbin ! udpsink, P and K matched to camrtp's FEC at the path's loss")

    def command(self, session):
        delta, key = self.percentages(session.profile.loss)
        command = super().command(session)
        payloader = command.index("rtpvp8pay")
        # One byte less than the MTU for the RED header, as camrtp leaves room for it.
        command[payloader + 2] = f"mtu={MTU - 1}"
        rtx = command.index("rtprtxsend")
        command[rtx + 1] = f"payload-type-map=application/x-rtp-pt-map,{self.red}=(uint){self.rtx_payload_type}"
        return (command[:rtx] + ["rtpulpfecenc", f"pt={self.ulpfec}", f"percentage={delta}",
                                 f"percentage-important={key}", "!", "rtpredenc", f"pt={self.red}",
                                 "allow-no-red-blocks=true", "!"] + command[rtx:])
