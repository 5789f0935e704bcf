"""The one receiver every sender meets: GStreamer 1.22's rtpbin with NACK and PLI (REFERENCES.md
"GStreamer 1.22 rtpbin receiver"), or its RTX variant (rtpsession + rtprtxreceive) for senders
that retransmit on an RTX stream. Both decode to a Y4M file and send their RTCP to the relay.

Unlike the REFERENCES command, the RTCP udpsink has no bind-port: the relay takes feedback from
any address, and a udpsink bound to the udpsrc's port (both SO_REUSEADDR) may be the socket the
kernel hands the sender's reports to (see rtcp_forwarder)."""

import json
import os
import signal
import subprocess
import time

from .common import ToolFailed, log_tail, stop_process
from .ports import is_bound

JITTER_BUFFER_LATENCY_MS = 200
# The session bandwidth in bit/s the receiver's RTCP share is reckoned from (5 % of it): without it
# NACKs wait for the regular RTCP interval (REFERENCES.md). Even so, GStreamer sends a NACK early
# only when its next regular report would come later than the packet's deadline less the RTT, so a
# NACK waits up to a report interval, about 110 ms here under loss; compare.py
# --receiver-rtcp-bandwidth changes it for every receiver of the run.
RTCP_SESSION_BANDWIDTH = 250000
START_TIMEOUT_S = 10
STOP_TIMEOUT_S = 15
RTP_CAPS = ("application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,"
            "payload=(int)96,rtcp-fb-nack-pli=(boolean)true")
TRANSPORT_CC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"


def rtp_caps(transport_cc_extension_id):
    """With an extension id, the receiver answers transport-wide sequence numbers with TWCC
    feedback; senders that do not number their packets so get none."""
    if transport_cc_extension_id is None:
        return RTP_CAPS
    return RTP_CAPS + f',extmap-{transport_cc_extension_id}=(string)"{TRANSPORT_CC_URI}"'
DECODE = ["rtpvp8depay", "request-keyframe=true", "wait-for-keyframe=true", "!", "vp8dec", "!", "y4menc", "!"]


def rtpbin_pipeline(rtp_port, feedback_port, out, caps):
    return ["gst-launch-1.0", "rtpbin", "name=rb", f"latency={JITTER_BUFFER_LATENCY_MS}", "do-retransmission=true",
            "rtp-profile=avpf", f"rtpsession0::bandwidth={RTCP_SESSION_BANDWIDTH}",
            "udpsrc", f"port={rtp_port}", f"caps={caps}", "!", "rb.recv_rtp_sink_0",
            "udpsrc", f"port={rtp_port + 1}", "!", "rb.recv_rtcp_sink_0",
            "rb.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", f"port={feedback_port}", "sync=false", "async=false",
            "rb.", "!"] + DECODE + ["filesink", f"location={out}"]


def rtx_pipeline(rtp_port, feedback_port, out, caps, rtx_payload_type):
    # rtpptdemux is required or no PLI is ever sent (REFERENCES.md).
    pt_map = f"application/x-rtp-pt-map,96=(uint){rtx_payload_type}"
    return ["gst-launch-1.0", "rtpsession", "name=s", "rtp-profile=avpf", f"bandwidth={RTCP_SESSION_BANDWIDTH}",
            "udpsrc", f"port={rtp_port}", f"caps={caps}", "!", "s.recv_rtp_sink",
            "udpsrc", f"port={rtp_port + 1}", "!", "s.recv_rtcp_sink",
            "s.send_rtcp_src", "!", "udpsink", "host=127.0.0.1", f"port={feedback_port}", "sync=false", "async=false",
            "s.recv_rtp_src", "!", "rtprtxreceive", f"payload-type-map={pt_map}", "!", "rtpssrcdemux", "!",
            "rtpjitterbuffer", "do-retransmission=true", f"latency={JITTER_BUFFER_LATENCY_MS}", "!",
            "rtpptdemux", "!"] + DECODE + ["filesink", f"location={out}"]


def variant_name(rtx_payload_type, transport_cc_extension_id=None):
    name = "rtpbin" if rtx_payload_type is None else f"rtpsession + rtprtxreceive, RTX pt {rtx_payload_type}"
    return name + (f", TWCC on extension {transport_cc_extension_id}" if transport_cc_extension_id is not None else "")


class GStreamerReceiver:
    """Binds `rtp_port` and the port above it, decodes to `out`, sends RTCP to `feedback_port`.
    Stopped with SIGINT and without -e, which flushes the file."""

    def __init__(self, workdir, rtp_port, feedback_port, rtx_payload_type=None, transport_cc_extension_id=None):
        self.out = os.path.join(workdir, "received.y4m")
        self.log_path = os.path.join(workdir, "receiver.log")
        self.rtp_port = rtp_port
        caps = rtp_caps(transport_cc_extension_id)
        if rtx_payload_type is None:
            self.cmd = rtpbin_pipeline(rtp_port, feedback_port, self.out, caps)
        else:
            self.cmd = rtx_pipeline(rtp_port, feedback_port, self.out, caps, rtx_payload_type)

    def __enter__(self):
        if os.path.exists(self.out):
            os.remove(self.out)
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        if not self.wait_bound():
            self.stop()
            raise ToolFailed(f"the GStreamer receiver did not start: {' '.join(self.cmd)}\n{log_tail(self.log_path)}")
        return self

    def wait_bound(self):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            if is_bound(self.rtp_port) and is_bound(self.rtp_port + 1):
                return True
            time.sleep(0.02)
        return False

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        stop_process(self.process, signal.SIGINT, STOP_TIMEOUT_S)
        self.log.close()


FEC_RECEIVER_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                   "Tests", "Tools", "gst_fec_receiver.py")


class GStreamerFECReceiver:
    """Tests/Tools/gst_fec_receiver.py: rtpbin with rtpreddec (after rtprtxreceive for RTX) and
    rtpulpfecdec, as webrtcbin wires them, NACK on, the same jitter buffer and RTCP bandwidth
    as GStreamerReceiver, decoding to `out`. Needs Debian's python3-gi and gir1.2-gstreamer-1.0
    (its /usr/bin/python3). `figures()` is what it counted (its "final" line): frames decoded,
    packets FEC rebuilt or not, and the gaps between decoded frames."""

    def __init__(self, workdir, rtp_port, feedback_port, red, ulpfec, rtx_payload_type=None, rtx_apt=None,
                 transport_cc_extension_id=None):
        self.out = os.path.join(workdir, "received.y4m")
        self.log_path = os.path.join(workdir, "receiver.log")
        self.cmd = ["/usr/bin/python3", "-u", FEC_RECEIVER_SCRIPT, "--port", str(rtp_port),
                    "--feedback-port", str(feedback_port), "--red-payload-type", str(red),
                    "--ulpfec-payload-type", str(ulpfec), "--nack", "--latency", str(JITTER_BUFFER_LATENCY_MS),
                    "--rtcp-bandwidth", str(RTCP_SESSION_BANDWIDTH), "--output", self.out]
        if rtx_payload_type is not None:
            self.cmd += ["--rtx-payload-type", str(rtx_payload_type)] + (["--rtx-apt", str(rtx_apt)] if rtx_apt else [])
        if transport_cc_extension_id is not None:
            self.cmd += ["--twcc-extension", str(transport_cc_extension_id)]

    def __enter__(self):
        if os.path.exists(self.out):
            os.remove(self.out)
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while b'"playing"' not in self.read_log():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise ToolFailed(f"the GStreamer FEC receiver did not start: {' '.join(self.cmd)}\n{log_tail(self.log_path)}")
            time.sleep(0.02)
        return self

    def read_log(self):
        with open(self.log_path, "rb") as log:
            return log.read()

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        stop_process(self.process, signal.SIGINT, STOP_TIMEOUT_S)
        self.log.close()

    def figures(self):
        finals = [json.loads(line) for line in self.read_log().splitlines() if b'"event": "final"' in line]
        return finals[-1] if finals else None
