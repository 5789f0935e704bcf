"""Free UDP ports on 127.0.0.1 for tools that must be told theirs (GStreamer's udpsrc)."""

import random
import socket


def free_port_pair():
    """An even port P with P and P + 1 free at the time of asking."""
    for _ in range(200):
        port = random.randrange(20000, 60000, 2)
        if all(is_free(port + offset) for offset in (0, 1)):
            return port
    raise OSError("no free even UDP port pair on 127.0.0.1")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def is_bound(port):
    """True when some socket on this machine is bound to UDP `port` (read from /proc/net/udp,
    so that asking never races the tool that is binding it)."""
    suffix = f":{port:04X}"
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            with open(table) as f:
                next(f)
                if any(line.split()[1].endswith(suffix) for line in f):
                    return True
        except FileNotFoundError:
            continue
    return False


def is_free(port):
    """True when nothing holds `port`: a bind without SO_REUSEADDR fails against any holder."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False
