"""One socket between a gst-launch sender's RTCP and the relay, so that its feedback reaches it.

gst-launch cannot give the RTCP udpsink and the feedback udpsrc one socket. Binding both to one
port (udpsink bind-port = udpsrc port, both with SO_REUSEADDR) leaves it to the kernel which of
the two gets the feedback, and here it was the udpsink, which never reads, in about half of the
runs: no NACK and no PLI ever reached the sender. So the sender's RTCP goes to this forwarder,
which sends it on to the relay from its own socket; what the relay sends back there (to the
source it has seen) is passed to the sender's feedback port."""

import select
import socket
import threading


class RTCPForwarder:
    """Listens on 127.0.0.1 (`port`); datagrams from the relay go to `feedback_port`, all
    others to the relay."""

    def __init__(self, relay_port, feedback_port):
        self.relay = ("127.0.0.1", relay_port)
        self.feedback = ("127.0.0.1", feedback_port)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.setblocking(False)
        self.port = self.socket.getsockname()[1]
        self.stop_read, self.stop_write = socket.socketpair()
        self.thread = threading.Thread(target=self.run, name="rtcp-forwarder", daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_write.send(b"x")
        self.thread.join()
        for sock in (self.socket, self.stop_read, self.stop_write):
            sock.close()

    def run(self):
        while True:
            readable, _, _ = select.select([self.socket, self.stop_read], [], [])
            if self.stop_read in readable:
                return
            while True:
                try:
                    data, source = self.socket.recvfrom(65536)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    continue  # an ICMP error from an earlier send
                try:
                    self.socket.sendto(data, self.feedback if source == self.relay else self.relay)
                except OSError:
                    pass
