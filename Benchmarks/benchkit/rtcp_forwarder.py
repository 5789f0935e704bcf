"""One socket between a gst-launch sender's RTCP and the relay, so that its feedback reaches it.

gst-launch cannot give the RTCP udpsink and the feedback udpsrc one socket. Binding both to one
port (udpsink bind-port = udpsrc port, both with SO_REUSEADDR) leaves it to the kernel which of
the two gets the feedback, and here it was the udpsink, which never reads, in about half of the
runs: no NACK and no PLI ever reached the sender. So the sender's RTCP goes to this forwarder,
which sends it on to the relay from its own socket; what the relay sends back there (to the
source it has seen) is passed to the sender's feedback port."""

from .datagram_worker import DatagramWorker


class RTCPForwarder(DatagramWorker):
    """Listens on 127.0.0.1 (`port`); datagrams from the relay go to `feedback_port`, all
    others to the relay."""

    def __init__(self, relay_port, feedback_port):
        super().__init__("rtcp-forwarder")
        self.relay = ("127.0.0.1", relay_port)
        self.feedback = ("127.0.0.1", feedback_port)

    def drain(self):
        for data, source in self.datagrams():
            try:
                self.socket.sendto(data, self.feedback if source == self.relay else self.relay)
            except OSError:
                pass
