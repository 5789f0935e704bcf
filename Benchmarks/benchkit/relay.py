"""The project's impairment relay (Tests/Tools/impairment_relay.py) as a child process: two
lanes (RTP, RTCP) between a sender and a receiver, its stats JSON and its per-packet log."""

import csv
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time

from .common import ToolFailed, log_tail, stop_process

RELAY_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "Tests", "Tools", "impairment_relay.py")
READY_TIMEOUT_S = 10


@dataclasses.dataclass(frozen=True)
class LinkProfile:
    """The path: random loss and a bottleneck on the forward link (sender -> receiver), the
    same one-way delay both ways."""
    loss: float = 0.0
    one_way_delay_ms: float = 20
    rate_kbps: float | None = None
    queue_ms: float | None = None
    schedule: tuple = ()   # ((seconds, kbps), ...) from the first packet

    def relay_arguments(self):
        args = ["--forward-delay", str(self.one_way_delay_ms), "--reverse-delay", str(self.one_way_delay_ms)]
        if self.loss:
            args += ["--forward-loss", str(self.loss)]
        if self.rate_kbps:
            args += ["--forward-rate", str(self.rate_kbps)]
        if self.schedule:
            args += ["--forward-schedule", ",".join(f"{seconds}:{kbps}" for seconds, kbps in self.schedule)]
        if self.queue_ms is not None:
            args += ["--forward-queue-ms", str(self.queue_ms)]
        return args

    def capacity_kbps_at(self, seconds):
        """The configured forward rate at `seconds` from the first packet; None = unlimited."""
        rate = self.rate_kbps
        for start, kbps in self.schedule:
            if seconds >= start:
                rate = kbps
        return rate


@dataclasses.dataclass(frozen=True)
class RelayedPacket:
    direction: str
    lane: int
    arrival_ns: int          # from the relay's first packet
    departure_ns: int | None
    size: int
    outcome: str             # sent, loss, queue, no_peer, send_error, unsent_at_exit


class ImpairmentRelay:
    """Lane 0 carries RTP to `rtp_target`, lane 1 RTCP to `rtcp_target`; the sender sends to
    `rtp_port`/`rtcp_port` and the receiver sends its RTCP to `feedback_port`."""

    def __init__(self, profile, rtp_target, rtcp_target, workdir, seed):
        self.paths = {name: os.path.join(workdir, f"relay.{name}") for name in ("ready", "json", "csv", "log")}
        for path in self.paths.values():
            if os.path.exists(path):
                os.remove(path)
        self.cmd = [sys.executable, RELAY_SCRIPT,
                    "--lane", f"0:127.0.0.1:{rtp_target}", "--lane", f"0:127.0.0.1:{rtcp_target}",
                    "--seed", str(seed), "--ready-file", self.paths["ready"],
                    "--stats-json", self.paths["json"], "--packet-log", self.paths["csv"]] + profile.relay_arguments()

    def __enter__(self):
        self.log = open(self.paths["log"], "wb")
        self.process = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not os.path.exists(self.paths["ready"]):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise ToolFailed(f"the impairment relay did not start: {' '.join(self.cmd)}\n{log_tail(self.paths['log'])}")
            time.sleep(0.02)
        with open(self.paths["ready"]) as f:
            rtp_lane, rtcp_lane = json.load(f)["lanes"]
        self.rtp_port, self.rtcp_port = rtp_lane["listen_port"], rtcp_lane["listen_port"]
        self.feedback_port = rtcp_lane["inner_port"]
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        stop_process(self.process, signal.SIGTERM, 30)
        self.log.close()

    def stats(self):
        with open(self.paths["json"]) as f:
            return json.load(f)

    def packets(self):
        with open(self.paths["csv"], newline="") as f:
            return [RelayedPacket(row["direction"], int(row["lane"]), int(row["arrival_ns"]),
                                  int(row["departure_ns"]) if row["departure_ns"] else None,
                                  int(row["size"]), row["reason"])
                    for row in csv.DictReader(f)]
