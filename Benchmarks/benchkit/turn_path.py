"""An impaired path for a browser's media without netem: the browser reaches coturn only
through the project's impairment relay, and relays all its media there
(iceTransportPolicy "relay"), so every packet between the sender and the browser crosses the
relay once, each way.

    sender ──▶ coturn (relayed address) ──▶ relay inner ──(reverse link)──▶ relay listen ──▶ browser
    sender ◀── coturn                   ◀── relay inner ◀──(forward link)── relay listen ◀── browser

The reverse link carries the media, the forward link the browser's feedback and its TURN
requests. The sender needs no TURN support: coturn reaches its host candidate on 127.0.0.1.
"""

import json
import os
import signal
import subprocess
import sys
import time

from .common import ToolFailed, log_tail, stop_process
from .ports import free_port
from .relay import RELAY_SCRIPT, READY_TIMEOUT_S

USER, PASSWORD, REALM = "bench", "bench-secret", "camrtp.bench"


class TurnPath:
    def __init__(self, workdir, one_way_delay_ms, loss, seed):
        self.workdir = workdir
        self.relay_arguments = ["--forward-delay", str(one_way_delay_ms), "--reverse-delay", str(one_way_delay_ms)]
        if loss:
            self.relay_arguments += ["--forward-loss", str(loss), "--reverse-loss", str(loss)]
        self.seed = seed
        self.processes = []

    def __enter__(self):
        turn_port = free_port()
        self._start("coturn", [
            "turnserver", "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={turn_port}",
            "--lt-cred-mech", f"--user={USER}:{PASSWORD}", f"--realm={REALM}", "--fingerprint", "--no-tls", "--no-dtls",
            "--no-cli", "--allow-loopback-peers", f"--userdb={os.path.join(self.workdir, 'turndb')}",
            f"--pidfile={os.path.join(self.workdir, 'turnserver.pid')}", "--log-file=stdout", "--simple-log"])
        ready = os.path.join(self.workdir, "turn-relay.ready")
        if os.path.exists(ready):
            os.remove(ready)
        # Chromium reaches its TURN server from more than one socket: each must keep its own
        # 5-tuple at coturn, and hear its own replies (--map-sources).
        self._start("relay", [sys.executable, RELAY_SCRIPT, "--lane", f"0:127.0.0.1:{turn_port}", "--map-sources", "--seed", str(self.seed),
                              "--ready-file", ready, "--stats-json", os.path.join(self.workdir, "turn-relay.json")]
                    + self.relay_arguments)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not os.path.exists(ready):
            if time.monotonic() > deadline:
                self.__exit__()
                raise ToolFailed(f"the impairment relay did not start\n{log_tail(os.path.join(self.workdir, 'relay.log'))}")
            time.sleep(0.02)
        with open(ready) as f:
            self.port = json.load(f)["lanes"][0]["listen_port"]
        return self

    def __exit__(self, *exc):
        for process, log in reversed(self.processes):
            stop_process(process, signal.SIGTERM, 10)
            log.close()
        self.processes = []

    def stats(self):
        with open(os.path.join(self.workdir, "turn-relay.json")) as f:
            return json.load(f)

    @property
    def ice_servers(self):
        """The RTCPeerConnection configuration that sends everything through the path."""
        return {"iceServers": [{"urls": f"turn:127.0.0.1:{self.port}?transport=udp", "username": USER,
                                "credential": PASSWORD}], "iceTransportPolicy": "relay"}

    def _start(self, name, command):
        log = open(os.path.join(self.workdir, f"{name}.log"), "wb")
        self.processes.append((subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT), log))
