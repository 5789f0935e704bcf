"""A UDP socket on 127.0.0.1 served by a thread of its own until the `with` block ends."""

import select
import socket
import threading


class DatagramWorker:
    """Binds a non-blocking socket to a free port (`port`); subclasses handle what arrives in
    `drain`, which reads until the socket is empty. Whatever waits when the block ends is
    drained before the thread stops."""

    def __init__(self, name, receive_buffer_bytes=None):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        if receive_buffer_bytes:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer_bytes)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.setblocking(False)
        self.port = self.socket.getsockname()[1]
        self.stop_read, self.stop_write = socket.socketpair()
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

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
            self.drain()
            if self.stop_read in readable:
                return

    def datagrams(self):
        """What waits on the socket, as (data, source), until it is empty. ICMP errors from
        earlier sends are skipped."""
        while True:
            try:
                yield self.socket.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                continue

    def drain(self):
        raise NotImplementedError
