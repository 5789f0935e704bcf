#!/usr/bin/python3
"""GStreamer 1.22 receiving VP8 with RED (RFC 2198) and ULPFEC (RFC 5109), wired as GStreamer's
own WebRTC receiver (webrtcbin) wires it, which gst-launch cannot do: rtpbin's
request-fec-decoder signal must return an element.

  udpsrc PORT ─▶ rtpbin ─ session ─▶ aux receiver: [rtprtxreceive] ! rtpreddec pt=RED
                                   ─▶ rtpstorage (size-time: the latency + 200 ms)
                                   ─▶ rtpssrcdemux ─▶ rtpjitterbuffer (NACK, lost events)
                                   ─▶ rtpulpfecdec pt=ULPFEC storage=<the session's storage>
                                   ─▶ rtpptdemux ─▶ rtpvp8depay ! vp8dec [! y4menc ! filesink]
  udpsrc PORT+1 ─▶ rtpbin (the sender's reports);  rtpbin's RTCP ─▶ udpsink FEEDBACK_HOST:PORT

rtpulpfecdec rebuilds a packet when the jitter buffer gives it up as lost (do-lost), from the
FEC packets and the other protected packets the storage still holds: the media packets since
the FEC packets before them, up to the FEC packets after them. With NACK on (--nack), the
jitter buffer asks first and declares the loss only when no repair came in time.

GStreamer 1.22's rtpreddec rebuilds each packet with a bare header, dropping its header
extensions, while a sender's FEC covers them (RFC 5109 protects everything after the fixed
header): packets rebuilt from a sender that uses extensions come out garbled. Send without them.

One departure from webrtcbin: it keeps packets in the storage for the jitter buffer's latency
only, but a loss is declared up to that latency after the lost packet was due, by when the
packets sent before it in its FEC group (libwebrtc's and camrtp's span up to 6 frames, 200 ms
at 30 fps) are gone and it cannot be rebuilt. Here the storage keeps them for the latency and
200 ms more (--storage-ms).

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC:
  {"event": "playing"}                             the pipeline plays: packets sent now are read
  {"event": "stats", ...}                          every second while the figures change
  {"event": "final", ...}                          on SIGINT or SIGTERM, then it exits 0
  {"event": "error", "message": "..."}             a pipeline error; exit 1
The figures: framesDecoded; fecRecovered and fecUnrecovered (rtpulpfecdec's recovered and
unrecovered), redPackets (rtpreddec's received), rtxPackets (rtprtxreceive's), jitterBuffer
(num-pushed, num-lost, num-late, num-duplicates, rtx-count, rtx-success-count); and, in
"final", the decoder's output gaps: gapMaxMs, the longest time between two frames leaving the
decoder, and freezes, the gaps longer than --freeze-ms (200: six frames at 30 fps), with
freezeTotalMs, their sum.
"""
import argparse
import json
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GLib", "2.0")
from gi.repository import GLib, Gst  # noqa: E402

CLOCK_RATE = 90000
# The longest an FEC group of libwebrtc's or camrtp's spans: 6 frames at 30 fps.
GROUP_SPAN_MS = 200
TWCC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"


def emit(event, **fields):
    sys.stdout.write(json.dumps({"event": event, "t": time.monotonic(), **fields}) + "\n")
    sys.stdout.flush()


def make(factory, properties=None):
    """An element with its properties set; enum and flag values may be given by their nick."""
    element = Gst.ElementFactory.make(factory, None)
    if element is None:
        raise RuntimeError(f"GStreamer has no {factory}: apt-get install gstreamer1.0-plugins-good")
    for name, value in (properties or {}).items():
        if isinstance(value, str):
            Gst.util_set_object_arg(element, name, value)
        else:
            element.set_property(name, value)
    return element


class Receiver:
    def __init__(self, arguments):
        self.arguments = arguments
        self.frame_times = []
        self.fec_decoders = []
        self.red_decoders = []
        self.rtx_receivers = []
        self.jitter_buffers = []
        self.last_report = None
        self.pipeline = Gst.Pipeline.new("receiver")
        self.rtpbin = make("rtpbin", {"latency": arguments.latency, "do-retransmission": arguments.nack, "do-lost": True,
                                      "rtp-profile": "avpf"})
        for signal, handler in (("request-pt-map", self.caps_for), ("request-aux-receiver", self.aux_receiver),
                                ("request-fec-decoder", self.fec_decoder), ("new-storage", self.new_storage),
                                ("new-jitterbuffer", self.new_jitterbuffer), ("pad-added", self.pad_added)):
            self.rtpbin.connect(signal, handler)
        rtp = make("udpsrc", {"address": arguments.address, "port": arguments.port, "buffer-size": 4 << 20,
                              "caps": Gst.Caps.from_string(self.caps_string(arguments.payload_type))})
        rtcp = make("udpsrc", {"address": arguments.address, "port": arguments.port + 1})
        feedback = make("udpsink", {"host": arguments.feedback_host, "port": arguments.feedback_port, "sync": False,
                                    "async": False})
        for element in (self.rtpbin, rtp, rtcp, feedback):
            self.pipeline.add(element)
        rtp.get_static_pad("src").link(self.rtpbin.request_pad_simple("recv_rtp_sink_0"))
        rtcp.get_static_pad("src").link(self.rtpbin.request_pad_simple("recv_rtcp_sink_0"))
        self.rtpbin.request_pad_simple("send_rtcp_src_0").link(feedback.get_static_pad("sink"))
        self.rtpbin.emit("get-session", 0).set_property("bandwidth", float(arguments.rtcp_bandwidth))
        self.decode = self.decoder_chain()

    # --- what rtpbin asks for --------------------------------------------------------------

    def caps_string(self, payload_type):
        arguments = self.arguments
        caps = f"application/x-rtp,media=(string)video,clock-rate=(int){CLOCK_RATE},payload=(int){payload_type}"
        if payload_type == arguments.payload_type:
            caps += ",encoding-name=(string)VP8,rtcp-fb-nack-pli=(boolean)true"
            if arguments.nack:
                caps += ",rtcp-fb-nack=(boolean)true"
            if arguments.twcc_extension is not None:
                caps += f',extmap-{arguments.twcc_extension}=(string)"{TWCC_URI}"'
        elif payload_type == arguments.red_payload_type:
            caps += ",encoding-name=(string)RED"
        elif payload_type == arguments.ulpfec_payload_type:
            caps += ",encoding-name=(string)ULPFEC,is-fec=(boolean)true"
        elif payload_type == arguments.rtx_payload_type:
            caps += f",encoding-name=(string)RTX,apt=(int){arguments.rtx_apt or arguments.payload_type}"
        else:
            return None
        return caps

    def caps_for(self, rtpbin, session, payload_type):
        text = self.caps_string(payload_type)
        return Gst.Caps.from_string(text) if text else None

    def aux_receiver(self, rtpbin, session):
        """[rtprtxreceive] ! rtpreddec, as webrtcbin's on_rtpbin_request_aux_receiver builds it:
        RTX turns back into the packet it carries, then RED into its primary block."""
        arguments = self.arguments
        bin_ = Gst.Bin.new(f"aux{session}")
        chain = []
        if arguments.rtx_payload_type is not None:
            pt_map = Gst.Structure.new_from_string(
                f"application/x-rtp-pt-map,{arguments.rtx_apt or arguments.payload_type}=(uint){arguments.rtx_payload_type}")
            rtx = make("rtprtxreceive", {"payload-type-map": pt_map})
            self.rtx_receivers.append(rtx)
            chain.append(rtx)
        red = make("rtpreddec", {"pt": arguments.red_payload_type})
        self.red_decoders.append(red)
        chain.append(red)
        for element in chain:
            bin_.add(element)
        for upstream, downstream in zip(chain, chain[1:]):
            upstream.link(downstream)
        bin_.add_pad(Gst.GhostPad.new(f"sink_{session}", chain[0].get_static_pad("sink")))
        bin_.add_pad(Gst.GhostPad.new(f"src_{session}", chain[-1].get_static_pad("src")))
        return bin_

    def fec_decoder(self, rtpbin, session):
        storage = rtpbin.emit("get-internal-storage", session)
        decoder = make("rtpulpfecdec", {"pt": self.arguments.ulpfec_payload_type, "storage": storage})
        self.fec_decoders.append(decoder)
        return decoder

    def new_storage(self, rtpbin, storage, session):
        storage_ms = self.arguments.storage_ms or self.arguments.latency + GROUP_SPAN_MS
        storage.set_property("size-time", storage_ms * Gst.MSECOND)

    def new_jitterbuffer(self, rtpbin, jitter_buffer, session, ssrc):
        self.jitter_buffers.append(jitter_buffer)

    def pad_added(self, rtpbin, pad):
        name = pad.get_name()
        if not name.startswith("recv_rtp_src_"):
            return
        payload_type = int(name.rsplit("_", 1)[1])
        if payload_type == self.arguments.payload_type and not self.decode.get_static_pad("sink").is_linked():
            pad.link(self.decode.get_static_pad("sink"))
            return
        sink = make("fakesink", {"sync": False, "async": False})
        self.pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    # --- decoding --------------------------------------------------------------------------

    def decoder_chain(self):
        decode = Gst.Bin.new("decode")
        elements = [make("rtpvp8depay", {"request-keyframe": True, "wait-for-keyframe": self.arguments.wait_for_keyframe}),
                    make("vp8dec", {"threads": 1})]
        if self.arguments.output:
            elements += [make("y4menc"), make("filesink", {"location": self.arguments.output, "buffer-mode": "unbuffered", "async": False})]
        else:
            elements.append(make("fakesink", {"sync": False, "async": False}))
        for element in elements:
            decode.add(element)
        for upstream, downstream in zip(elements, elements[1:]):
            upstream.link(downstream)
        elements[1].get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, self.frame_decoded)
        decode.add_pad(Gst.GhostPad.new("sink", elements[0].get_static_pad("sink")))
        self.pipeline.add(decode)
        return decode

    def frame_decoded(self, pad, info):
        self.frame_times.append(time.monotonic())
        return Gst.PadProbeReturn.OK

    # --- reporting -------------------------------------------------------------------------

    def figures(self):
        def total(elements, name):
            return sum(element.get_property(name) for element in elements)

        jitter = {}
        for jitter_buffer in self.jitter_buffers:
            stats = jitter_buffer.get_property("stats")
            for key in ("num-pushed", "num-lost", "num-late", "num-duplicates", "rtx-count", "rtx-success-count"):
                ok, value = stats.get_uint64(key)
                if ok:
                    jitter[key] = jitter.get(key, 0) + value
        return {"framesDecoded": len(self.frame_times), "fecRecovered": total(self.fec_decoders, "recovered"),
                "fecUnrecovered": total(self.fec_decoders, "unrecovered"), "redPackets": total(self.red_decoders, "received"),
                "rtxPackets": total(self.rtx_receivers, "num-rtx-packets"), "jitterBuffer": jitter}

    def gaps(self):
        gaps = [(later - earlier) * 1000 for earlier, later in zip(self.frame_times, self.frame_times[1:])]
        freezes = [gap for gap in gaps if gap > self.arguments.freeze_ms]
        return {"gapMaxMs": max(gaps, default=None), "freezes": len(freezes), "freezeTotalMs": sum(freezes),
                "freezeThresholdMs": self.arguments.freeze_ms,
                "firstFrameT": self.frame_times[0] if self.frame_times else None,
                "lastFrameT": self.frame_times[-1] if self.frame_times else None}

    def report(self):
        figures = self.figures()
        if figures != self.last_report:
            emit("stats", **figures)
            self.last_report = figures
        return True

    def on_message(self, bus, message, loop):
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            emit("error", message=f"{message.src.get_name()}: {error.message} ({debug})")
            self.failed = True
            loop.quit()
        elif message.type == Gst.MessageType.STATE_CHANGED and message.src == self.pipeline:
            _, new, _ = message.parse_state_changed()
            if new == Gst.State.PLAYING and not self.playing:
                self.playing = True
                emit("playing")

    def run(self):
        loop = GLib.MainLoop()
        self.failed, self.playing = False, False
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message, loop)

        def stop():
            emit("final", **self.figures(), **self.gaps())
            loop.quit()
            return False

        for signal_number in (2, 15):  # SIGINT, SIGTERM
            GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal_number, stop)
        GLib.timeout_add(1000, self.report)
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            emit("error", message="the pipeline would not play")
            return 1
        loop.run()
        self.pipeline.set_state(Gst.State.NULL)
        return 1 if self.failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="RTP; the sender's RTCP on the port above")
    parser.add_argument("--feedback-host", default="127.0.0.1")
    parser.add_argument("--feedback-port", type=int, required=True, help="where the receiver's RTCP goes")
    parser.add_argument("--payload-type", type=int, default=96)
    parser.add_argument("--red-payload-type", type=int, required=True)
    parser.add_argument("--ulpfec-payload-type", type=int, required=True)
    parser.add_argument("--rtx-payload-type", type=int, help="RTX (RFC 4588) repairs arrive on this payload type")
    parser.add_argument("--rtx-apt", type=int, help="the payload type RTX carries (default: --payload-type)")
    parser.add_argument("--nack", action="store_true", help="ask for lost packets (NACK) before giving them up")
    parser.add_argument("--latency", type=int, default=200, help="the jitter buffer's latency, ms")
    parser.add_argument("--storage-ms", type=int, help="how long the storage keeps packets (default: the latency + 200)")
    parser.add_argument("--rtcp-bandwidth", type=int, default=250000, help="bit/s: lets NACKs go out early")
    parser.add_argument("--twcc-extension", type=int, help="answer transport-wide sequence numbers on this extension id")
    # rtpulpfecdec passes on the loss of an FEC packet like any other (might-have-been-fec), and
    # GStreamer 1.22's depayloader, told to wait, throws the following frames away though no
    # media was lost; without waiting, a frame decoded from a damaged reference shows in its PSNR.
    parser.add_argument("--wait-for-keyframe", action="store_true",
                        help="after a loss, decode nothing until a keyframe (drops frames after a lost FEC packet too)")
    parser.add_argument("--freeze-ms", type=float, default=200)
    parser.add_argument("--output", help="write the decoded pictures here (Y4M)")
    arguments = parser.parse_args()
    Gst.init(None)
    try:
        receiver = Receiver(arguments)
    except RuntimeError as error:
        emit("error", message=str(error))
        return 1
    return receiver.run()


if __name__ == "__main__":
    sys.exit(main())
