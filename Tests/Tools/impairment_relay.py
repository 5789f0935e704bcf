#!/usr/bin/env python3
"""A userspace UDP relay that misbehaves like a real network path, in both directions.

This kernel has no netem, so tests and benchmarks put this relay between a sender and a
receiver to show loss repair (NACK), keyframe requests and congestion control at work.

Topology: lanes
  A lane is LISTEN_PORT:HOST:PORT[@INNER_PORT].

      sender ──▶ listen port ┐                 ┌ inner port ──▶ HOST:PORT (receiver)
                             │  forward link   │
      sender ◀── listen port ┘  reverse link   └ inner port ◀── anyone (the receiver's RTCP)

  Datagrams arriving on the listen port leave from the inner socket towards HOST:PORT (forward).
  Datagrams arriving on the inner socket, from anyone, leave from the listen socket towards the
  last source seen on the listen port (reverse); until the sender has sent something on that
  lane there is nowhere to go and they are dropped as "no_peer". So the sender hears its
  feedback from the very address it sends to (symmetric RTP, RFC 4961), and the receiver is told
  to send its feedback to the inner port. Port 0 means "any free port": the ready file tells
  which. All lanes share one forward link and one reverse link: one bottleneck queue per
  direction, as on a real path.

  With --map-sources, each source on a listen port gets an inner socket of its own (the first
  one the lane's), as a NAT maps each inside address and port to an outside port of its own, and
  what arrives on an inner socket goes back to its source alone. In front of a TURN server this
  is what keeps a browser's allocations apart: Chromium talks to its TURN server from more than
  one socket, and each socket's allocation must hear its own replies and media. Past 64 sources
  on a lane, new ones share the lane's inner socket (its replies go to the first source).

What a link does to a datagram, in order
  1. loss on arrival: random loss, then Gilbert-Elliott bursts (both may be on);
  2. the bottleneck: a drop-tail FIFO drained at the link rate (UDP payload bytes; no rate means
     no queue); time spent here is the "queue delay", own transmission time included;
  3. the one-way delay plus jitter, uniform in [-jitter, +jitter] and never below zero; packets
     keep their order (a packet waits for the one before it) unless --allow-reorder.

Deterministic loss
  Each direction draws from its own SplitMix64 generator (the 64-bit mixer of Steele, Lea and
  Flood 2014): state = seed for forward, seed + 1 for reverse. A draw u = (next() >> 11) / 2^53.
  Per arriving packet (no_peer packets draw nothing):
    - when loss > 0: one draw; the packet is lost if u < loss;
    - when bursts are on: one draw to move between states (good -> bad if u < ENTER,
      bad -> good if u < 1 / LENGTH), then, in the bad state and with LOSS < 1, one more draw:
      lost if u < LOSS (LOSS = 1 loses every packet of the bad state without a draw).
  --print-drops N prints the indices that this model drops among the first N packets of each
  direction, without opening a socket. Jitter has generators of its own, so it never shifts them.

Observability
  --ready-file is written atomically once every socket is bound ({"pid", "lanes": [{"listen_port",
  "inner_port", "target"}]}), and "ready" is printed on stdout. On SIGINT, SIGTERM or the end of
  --duration, --stats-json gets per direction: packets and bytes in, out and dropped (loss, queue,
  no_peer, send_error, unsent_at_exit: in = out + all of them), queue delay and departure lateness
  percentiles in ms, throughput out in kbit/s and 1-second bins: configured rate at the bin's
  start (null = unlimited), throughput of the packets that left in it, queue delay p95 and drops
  of the packets that arrived in it. Times in the packet log and bins count from the first
  packet, in either direction; so does --*-schedule.

Also an importable module: Relay(RelayConfig).bind(), .run(), .request_stop() (thread and
signal safe), .stats(); Link and LossModel are the pure models. Python 3 standard library only.
"""

import argparse
import bisect
import collections
import dataclasses
import heapq
import json
import math
import os
import select
import signal
import socket
import sys
import time

PROGRAM = "impairment_relay"
DIRECTIONS = ("forward", "reverse")
MASK64 = (1 << 64) - 1
SOCKET_BUFFER_BYTES = 4 << 20
MAX_DATAGRAM = 65_536
READS_PER_WAKE = 64
STOP_DRAIN_LIMIT = 100_000
MAX_MAPPED_SOURCES = 64  # per lane, with --map-sources


class ConfigError(Exception):
    """A bad argument or configuration value; the message is one line that names it."""


class BindError(Exception):
    """A socket that cannot be bound (the port is taken, the address is not local)."""


# --- models --------------------------------------------------------------------------------

class SplitMix64:
    """SplitMix64, the same generator as the Swift tests' SplitMix64, so they can predict drops."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        """A double in [0, 1) from the top 53 bits."""
        return (self.next() >> 11) * (1.0 / (1 << 53))


@dataclasses.dataclass(frozen=True)
class Burst:
    """Gilbert-Elliott loss: ENTER = P(good -> bad) per packet, LENGTH = mean packets in the bad
    state, LOSS = loss probability in the bad state."""
    enter: float
    length: float
    loss: float = 1.0


@dataclasses.dataclass(frozen=True)
class Impairment:
    """What one direction of the path does. rate_kbps 0 = unlimited; schedule = [(seconds since
    the first packet, kbit/s)], with rate_kbps in force before its first point."""
    loss: float = 0.0
    burst: Burst = None
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    rate_kbps: float = 0.0
    queue_ms: float = None
    queue_bytes: int = None
    schedule: tuple = ()

    @property
    def limits_rate(self):
        return self.rate_kbps > 0 or any(kbps > 0 for _, kbps in self.schedule)


class LossModel:
    """Random and burst loss for one direction, one decision per arriving packet."""

    def __init__(self, impairment, generator):
        self.loss = impairment.loss
        self.burst = impairment.burst
        self.generator = generator
        self.bad_state = False

    def drops_next(self):
        uniform = self.generator.uniform
        lost = self.loss > 0 and uniform() < self.loss
        burst = self.burst
        if burst is not None:
            leave = 1.0 / burst.length
            self.bad_state = uniform() >= leave if self.bad_state else uniform() < burst.enter
            if self.bad_state and (burst.loss >= 1.0 or uniform() < burst.loss):
                lost = True
        return lost


def loss_generator(seed, direction):
    return SplitMix64(seed + DIRECTIONS.index(direction))


def predicted_drops(impairment, seed, direction, count):
    """Indices among the first `count` packets of `direction` that the loss model drops."""
    model = LossModel(impairment, loss_generator(seed, direction))
    return [index for index in range(count) if model.drops_next()]


class Link:
    """One direction of the path as a pure model: loss, bottleneck and delay. Times are integer
    nanoseconds since the first packet; admit() gives each packet its fate on arrival."""

    def __init__(self, impairment, seed, direction, allow_reorder=False):
        self.impairment = impairment
        self.loss = LossModel(impairment, loss_generator(seed, direction))
        self.jitter = SplitMix64((seed ^ 0x6A09E667F3BCC909) + DIRECTIONS.index(direction))
        self.allow_reorder = allow_reorder
        self.schedule_ns = [int(seconds * 1e9) for seconds, _ in impairment.schedule]
        self.schedule_kbps = [kbps for _, kbps in impairment.schedule]
        self.delay_ns = int(impairment.delay_ms * 1e6)
        self.jitter_ns = int(impairment.jitter_ms * 1e6)
        self.busy_until_ns = 0
        self.backlog = collections.deque()  # (transmission end ns, size) of packets in the queue
        self.backlog_bytes = 0
        self.last_delivery_ns = 0

    def rate_kbps_at(self, t_ns):
        """The configured rate at `t_ns`; 0 = unlimited."""
        point = bisect.bisect_right(self.schedule_ns, t_ns) - 1
        return self.schedule_kbps[point] if point >= 0 else self.impairment.rate_kbps

    def queue_limit_bytes(self, rate_kbps):
        if self.impairment.queue_bytes is not None:
            return self.impairment.queue_bytes
        if self.impairment.queue_ms is not None:
            return rate_kbps * self.impairment.queue_ms / 8
        return None

    def admit(self, now_ns, size):
        """Returns (drop reason or None, delivery ns, queue delay ns) for a packet arriving now."""
        if self.loss.drops_next():
            return "loss", None, None
        backlog = self.backlog
        while backlog and backlog[0][0] <= now_ns:
            self.backlog_bytes -= backlog.popleft()[1]
        rate = self.rate_kbps_at(now_ns)
        if rate > 0 and self.backlog_bytes:
            limit = self.queue_limit_bytes(rate)
            if limit is not None and self.backlog_bytes + size > limit:
                return "queue", None, None
        start = max(now_ns, self.busy_until_ns)
        start_rate = self.rate_kbps_at(start)
        finish = start + (round(size * 8e6 / start_rate) if start_rate > 0 else 0)
        self.busy_until_ns = finish
        if finish > now_ns:
            backlog.append((finish, size))
            self.backlog_bytes += size
        delay = self.delay_ns
        if self.jitter_ns:
            delay = max(0, delay + round((2 * self.jitter.uniform() - 1) * self.jitter_ns))
        delivery = finish + delay
        if not self.allow_reorder:
            delivery = max(delivery, self.last_delivery_ns)
            self.last_delivery_ns = delivery
        return None, delivery, finish - now_ns


# --- statistics ----------------------------------------------------------------------------

DROP_OUTCOMES = {"loss": "dropped_loss", "queue": "dropped_queue", "no_peer": "dropped_no_peer",
                 "send_error": "dropped_send_error", "unsent_at_exit": "unsent_at_exit"}
OUTCOMES = ("in", "out", *DROP_OUTCOMES.values())
BIN_NS = 1_000_000_000


def percentiles_ms(samples_ns):
    """Nearest-rank p50/p95/p99/max in ms, or None without samples."""
    if not samples_ns:
        return None
    ordered = sorted(samples_ns)

    def rank(fraction):
        return ordered[max(0, math.ceil(len(ordered) * fraction) - 1)] / 1e6
    return {"p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99), "max": ordered[-1] / 1e6}


class DirectionStats:
    def __init__(self):
        self.packets = dict.fromkeys(OUTCOMES, 0)
        self.bytes = dict.fromkeys(OUTCOMES, 0)
        self.queue_delays_ns = []
        self.lateness_ns = []
        self.first_arrival_ns = None
        self.last_departure_ns = None
        self.bins = collections.defaultdict(lambda: [0, 0, []])  # bytes out, drops, queue delays

    def count(self, outcome, size):
        self.packets[outcome] += 1
        self.bytes[outcome] += size

    def arrived(self, t_ns, size):
        self.count("in", size)
        if self.first_arrival_ns is None:
            self.first_arrival_ns = t_ns

    def dropped(self, reason, t_ns, size):
        self.count(DROP_OUTCOMES[reason], size)
        self.bins[t_ns // BIN_NS][1] += 1

    def queued(self, t_ns, queue_delay_ns):
        self.queue_delays_ns.append(queue_delay_ns)
        self.bins[t_ns // BIN_NS][2].append(queue_delay_ns)

    def sent(self, t_ns, size, lateness_ns):
        self.count("out", size)
        self.lateness_ns.append(lateness_ns)
        self.last_departure_ns = t_ns
        self.bins[t_ns // BIN_NS][0] += size

    def report(self, link, bin_count):
        span_ns = 0
        if self.first_arrival_ns is not None and self.last_departure_ns is not None:
            span_ns = self.last_departure_ns - self.first_arrival_ns
        bins = []
        for index in range(bin_count):
            bytes_out, drops, delays = self.bins.get(index, (0, 0, []))
            delay = percentiles_ms(delays)
            bins.append({
                "start_s": index,
                "rate_kbps": link.rate_kbps_at(index * BIN_NS) or None,
                "throughput_kbps": bytes_out * 8 / 1000,
                "queue_delay_p95_ms": delay["p95"] if delay else None,
                "dropped": drops,
            })
        return {
            "packets": dict(self.packets),
            "bytes": dict(self.bytes),
            "queue_delay_ms": percentiles_ms(self.queue_delays_ns),
            "departure_lateness_ms": percentiles_ms(self.lateness_ns),
            "throughput_out_kbps": self.bytes["out"] * 8e6 / span_ns if span_ns > 0 else 0.0,
            "bins": bins,
        }


# --- the relay -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class LaneSpec:
    listen_port: int
    target_host: str
    target_port: int
    inner_port: int = 0

    @property
    def target(self):
        host = f"[{self.target_host}]" if ":" in self.target_host else self.target_host
        return f"{host}:{self.target_port}"


@dataclasses.dataclass(frozen=True)
class RelayConfig:
    lanes: tuple
    forward: Impairment = Impairment()
    reverse: Impairment = Impairment()
    seed: int = 1
    allow_reorder: bool = False
    bind: str = "127.0.0.1"
    map_sources: bool = False


class Lane:
    __slots__ = ("index", "spec", "listen", "inner", "target", "last_source", "mapped")

    def __init__(self, index, spec, listen, inner, target):
        self.index, self.spec, self.listen, self.inner, self.target = index, spec, listen, inner, target
        self.last_source = None
        self.mapped = {}  # with --map-sources: source address -> its inner socket


class Relay:
    """The relay: one thread, select() with a timeout set by the next departure."""

    def __init__(self, config, packet_log=None):
        self.config = config
        self.links = {d: Link(getattr(config, d), config.seed, d, config.allow_reorder) for d in DIRECTIONS}
        self.stats_by_direction = {d: DirectionStats() for d in DIRECTIONS}
        self.lanes = []
        self.packet_log = packet_log
        self.origin_ns = None
        self.pending = []  # heap of (delivery ns, sequence, direction, lane, data, destination, socket, arrival ns)
        self.sequence = 0
        self.started_ns = None
        self.stopped_ns = None
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(self.wake_write, False)
        # descriptor -> (lane, direction, socket, the source an inner socket answers, or None)
        self.readers = {}
        self.family = socket.AF_INET

    def bind(self):
        """Opens every socket; returns the bound lanes as the ready file lists them."""
        family = self.family = socket.AF_INET6 if ":" in self.config.bind else socket.AF_INET
        targets = [resolve(spec.target_host, spec.target_port, family, spec.target) for spec in self.config.lanes]
        for index, (spec, target) in enumerate(zip(self.config.lanes, targets)):
            listen = open_socket(family, self.config.bind, spec.listen_port)
            inner = open_socket(family, self.config.bind, spec.inner_port)
            lane = Lane(index, spec, listen, inner, target)
            self.lanes.append(lane)
            self.readers[listen.fileno()] = (lane, "forward", listen, None)
            self.readers[inner.fileno()] = (lane, "reverse", inner, None)
        return self.bound_lanes()

    def inner_socket(self, lane, source):
        """The inner socket `source`'s datagrams leave from: the lane's, or with --map-sources
        one of the source's own (the first source takes the lane's). Past MAX_MAPPED_SOURCES
        new sources share the lane's, whose replies go to the first source, so that a flood of
        sources cannot exhaust descriptors."""
        if not self.config.map_sources:
            return lane.inner
        sock = lane.mapped.get(source)
        if sock is None:
            if len(lane.mapped) >= MAX_MAPPED_SOURCES:
                return lane.inner
            sock = lane.inner if not lane.mapped else open_socket(self.family, self.config.bind, 0)
            lane.mapped[source] = sock
            self.readers[sock.fileno()] = (lane, "reverse", sock, source)
        return sock

    def bound_lanes(self):
        return [{"listen_port": lane.listen.getsockname()[1], "inner_port": lane.inner.getsockname()[1],
                 "target": lane.spec.target} for lane in self.lanes]

    def request_stop(self):
        """Ends run() soon; safe from a signal handler or another thread."""
        try:
            os.write(self.wake_write, b"x")
        except (BlockingIOError, OSError):
            pass

    def run(self, duration_s=None):
        self.started_ns = time.monotonic_ns()
        deadline = self.started_ns + int(duration_s * 1e9) if duration_s is not None else None
        while True:
            now = time.monotonic_ns()
            if deadline is not None and now >= deadline:
                break
            wake_at = self.send_due(now)
            if deadline is not None:
                wake_at = deadline if wake_at is None else min(wake_at, deadline)
            timeout = None if wake_at is None else max(0, wake_at - time.monotonic_ns()) / 1e9
            readable, _, _ = select.select([self.wake_read, *self.readers], [], [], timeout)
            if self.wake_read in readable:
                break
            for descriptor in readable:
                self.receive(*self.readers[descriptor], READS_PER_WAKE)
        self.finish()

    def receive(self, lane, direction, sock, answers, limit):
        """Reads up to `limit` datagrams from one of `lane`'s sockets, fewer when none is waiting;
        `answers` is the source an inner socket of --map-sources belongs to."""
        for _ in range(limit):
            try:
                data, source = sock.recvfrom(MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                continue  # an ICMP error queued on the socket; the next read gets the datagram
            now = time.monotonic_ns()
            if direction == "forward":
                lane.last_source = source
                self.admit("forward", lane, data, lane.target, self.inner_socket(lane, source), now)
            else:
                destination = answers if self.config.map_sources else lane.last_source
                self.admit("reverse", lane, data, destination, lane.listen, now)

    def admit(self, direction, lane, data, destination, out_socket, now):
        if self.origin_ns is None:
            self.origin_ns = now
        t_ns = now - self.origin_ns
        size = len(data)
        stats = self.stats_by_direction[direction]
        stats.arrived(t_ns, size)
        if destination is None:
            reason, delivery_ns, queue_delay_ns = "no_peer", None, None
        else:
            reason, delivery_ns, queue_delay_ns = self.links[direction].admit(t_ns, size)
        if reason is not None:
            stats.dropped(reason, t_ns, size)
            self.log(direction, lane, t_ns, None, size, reason)
            return
        stats.queued(t_ns, queue_delay_ns)
        self.sequence += 1
        heapq.heappush(self.pending, (delivery_ns + self.origin_ns, self.sequence, direction, lane,
                                      data, destination, out_socket, t_ns))

    def send_due(self, now):
        """Sends every packet due by `now`; returns when the next one is due, or None."""
        pending = self.pending
        while pending and pending[0][0] <= now:
            due, _, direction, lane, data, destination, out_socket, arrival = heapq.heappop(pending)
            stats = self.stats_by_direction[direction]
            try:
                out_socket.sendto(data, destination)
            except OSError:
                stats.dropped("send_error", arrival, len(data))
                self.log(direction, lane, arrival, None, len(data), "send_error")
                continue
            sent = time.monotonic_ns()
            stats.sent(sent - self.origin_ns, len(data), sent - due)
            self.log(direction, lane, arrival, sent - self.origin_ns, len(data), "sent")
            now = sent
        return pending[0][0] if pending else None

    def finish(self):
        """Counts what reached the sockets before the stop, sends what is due, and records the
        rest as unsent, so that in = out + dropped holds for everything the kernel delivered."""
        for reader in list(self.readers.values()):
            self.receive(*reader, STOP_DRAIN_LIMIT)
        self.send_due(time.monotonic_ns())
        while self.pending:
            _, _, direction, lane, data, _, _, arrival = heapq.heappop(self.pending)
            self.stats_by_direction[direction].dropped("unsent_at_exit", arrival, len(data))
            self.log(direction, lane, arrival, None, len(data), "unsent_at_exit")
        self.stopped_ns = time.monotonic_ns()

    def log(self, direction, lane, arrival_ns, departure_ns, size, reason):
        if self.packet_log is not None:
            departure = "" if departure_ns is None else departure_ns
            self.packet_log.write(f"{direction},{lane.index},{arrival_ns},{departure},{size},{reason}\n")

    def stats(self):
        bin_count = 0
        for stats in self.stats_by_direction.values():
            if stats.bins:
                bin_count = max(bin_count, max(stats.bins) + 1)
        run_ns = (self.stopped_ns or time.monotonic_ns()) - (self.started_ns or time.monotonic_ns())
        report = {"run_s": run_ns / 1e9, "seed": self.config.seed, "lanes": self.bound_lanes()}
        for direction in DIRECTIONS:
            report[direction] = self.stats_by_direction[direction].report(self.links[direction], bin_count)
        return report

    def close(self):
        for _, _, sock, _ in self.readers.values():
            sock.close()
        os.close(self.wake_read)
        os.close(self.wake_write)


def open_socket(family, host, port):
    sock = socket.socket(family, socket.SOCK_DGRAM)
    for option in (socket.SO_RCVBUF, socket.SO_SNDBUF):
        sock.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER_BYTES)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise BindError(f"cannot bind {host} port {port}: {error.strerror}") from None
    sock.setblocking(False)
    return sock


def resolve(host, port, family, text):
    try:
        return socket.getaddrinfo(host, port, family, socket.SOCK_DGRAM)[0][4]
    except socket.gaierror as error:
        kind = "IPv6" if family == socket.AF_INET6 else "IPv4"
        raise ConfigError(f"lane target {text}: no {kind} address ({error.strerror}); "
                          f"targets must be in the --bind address's family") from None


# --- configuration -------------------------------------------------------------------------

IMPAIRMENT_KEYS = ("loss", "burst", "delay_ms", "jitter_ms", "rate_kbps", "queue_ms", "queue_bytes", "schedule")
CONFIG_KEYS = ("lanes", "bind", "seed", "allow_reorder", "map_sources", "forward", "reverse")


def number(value, name, minimum=0.0, maximum=None, integer=False):
    try:
        if isinstance(value, bool):
            raise ValueError
        if integer and isinstance(value, float) and not value.is_integer():
            raise ValueError
        parsed = int(value) if integer else float(value)
        if not math.isfinite(parsed):
            raise ValueError
    except (TypeError, ValueError):
        kind = "a whole number" if integer else "a number"
        raise ConfigError(f"{name} {value!r}: expected {kind}") from None
    if parsed < minimum or (maximum is not None and parsed > maximum):
        bound = f"at least {minimum:g}" if maximum is None else f"in [{minimum:g}, {maximum:g}]"
        raise ConfigError(f"{name} {value!r}: must be {bound}")
    return parsed


def probability(value, name):
    if isinstance(value, str) and value.strip().endswith("%"):
        return number(value.strip()[:-1], name, 0, 100) / 100
    try:
        return number(value, name, 0, 1)
    except ConfigError:
        raise ConfigError(f"{name} {value!r}: expected a probability in [0, 1] or a percentage, "
                          f"such as 0.05 or 5%") from None


def parse_burst(value, name):
    if isinstance(value, dict):
        unknown = set(value) - {"enter", "length", "loss"}
        if unknown or not {"enter", "length"} <= set(value):
            raise ConfigError(f"{name}: expected {{\"enter\": P, \"length\": PACKETS, \"loss\": P}}")
        parts = [value["enter"], value["length"], value.get("loss", 1.0)]
    else:
        parts = str(value).split(":")
        if len(parts) not in (2, 3):
            raise ConfigError(f"{name} {value!r}: expected ENTER:LENGTH[:LOSS], such as 0.01:4 or 0.02:3:0.8")
    enter = probability(parts[0], f"{name} ENTER")
    length = number(parts[1], f"{name} LENGTH", 1)
    loss = probability(parts[2], f"{name} LOSS") if len(parts) == 3 else 1.0
    return Burst(enter, length, loss)


def parse_schedule(value, name):
    if isinstance(value, (list, tuple)):
        points = value
    else:
        points = [item.split(":") for item in str(value).split(",") if item.strip()]
    schedule = []
    for point in points:
        if len(point) != 2:
            raise ConfigError(f"{name} {value!r}: expected SECONDS:KBPS,..., such as 0:2000,10:600,20:2000")
        seconds = number(point[0], f"{name} time")
        kbps = number(point[1], f"{name} rate")
        if schedule and seconds <= schedule[-1][0]:
            raise ConfigError(f"{name} {value!r}: times must increase")
        schedule.append((seconds, kbps))
    if not schedule:
        raise ConfigError(f"{name} {value!r}: expected SECONDS:KBPS,..., such as 0:2000,10:600,20:2000")
    return tuple(schedule)


def parse_impairment(values, direction):
    """`values` maps IMPAIRMENT_KEYS to raw CLI strings or JSON values (absent = default)."""
    flag = f"--{direction}-"
    fields = {}
    if values.get("loss") is not None:
        fields["loss"] = probability(values["loss"], flag + "loss")
    if values.get("burst") is not None:
        fields["burst"] = parse_burst(values["burst"], flag + "burst")
    for key, option in (("delay_ms", "delay"), ("jitter_ms", "jitter"), ("rate_kbps", "rate"), ("queue_ms", "queue-ms")):
        if values.get(key) is not None:
            fields[key] = number(values[key], flag + option)
    if values.get("queue_bytes") is not None:
        fields["queue_bytes"] = number(values["queue_bytes"], flag + "queue-bytes", integer=True)
    if values.get("schedule") is not None:
        fields["schedule"] = parse_schedule(values["schedule"], flag + "schedule")
    impairment = Impairment(**fields)
    if impairment.queue_ms is not None and impairment.queue_bytes is not None:
        raise ConfigError(f"{flag}queue-ms and {flag}queue-bytes: give one queue size, not both")
    if (impairment.queue_ms is not None or impairment.queue_bytes is not None) and not impairment.limits_rate:
        raise ConfigError(f"{flag}queue-ms/{flag}queue-bytes: a queue needs a bottleneck; set {flag}rate or {flag}schedule")
    return impairment


def parse_lane(text):
    example = "such as 40000:127.0.0.1:5004@40100 or 0:[::1]:5004"
    main, _, inner = str(text).partition("@")
    listen, _, target = main.partition(":")
    host, _, port = target.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not listen or not host or not port:
        raise ConfigError(f"--lane {text!r}: expected LISTEN_PORT:HOST:PORT[@INNER_PORT], {example}")
    return LaneSpec(
        listen_port=number(listen, f"--lane {text!r} LISTEN_PORT", 0, 65535, integer=True),
        target_host=host,
        target_port=number(port, f"--lane {text!r} PORT", 1, 65535, integer=True),
        inner_port=number(inner, f"--lane {text!r} INNER_PORT", 0, 65535, integer=True) if inner else 0)


def load_config_file(path):
    try:
        with open(path, encoding="utf-8") as file:
            config = json.load(file)
    except OSError as error:
        raise ConfigError(f"--config {path}: cannot read: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"--config {path}: not JSON: {error}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"--config {path}: expected a JSON object")
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(f"--config {path}: unknown key {unknown[0]!r}; known: {', '.join(CONFIG_KEYS)}")
    for direction in DIRECTIONS:
        section = config.get(direction, {})
        if not isinstance(section, dict):
            raise ConfigError(f"--config {path}: {direction!r} must be an object")
        unknown = sorted(set(section) - set(IMPAIRMENT_KEYS))
        if unknown:
            raise ConfigError(f"--config {path}: unknown key {direction}.{unknown[0]}; known: {', '.join(IMPAIRMENT_KEYS)}")
    return config


def relay_config(args):
    """Merges --config (if any) with the flags; a flag wins over the file."""
    file = load_config_file(args.config) if args.config else {}
    sections = {}
    for direction in DIRECTIONS:
        values = dict(file.get(direction, {}))
        for key in IMPAIRMENT_KEYS:
            flag_value = getattr(args, f"{direction}_{key}")
            if flag_value is not None:
                values[key] = flag_value
        sections[direction] = parse_impairment(values, direction)
    lanes = args.lane if args.lane else file.get("lanes", [])
    if not isinstance(lanes, list):
        raise ConfigError("--config lanes: expected a list of LISTEN_PORT:HOST:PORT[@INNER_PORT]")
    seed = args.seed if args.seed is not None else file.get("seed", 1)
    return RelayConfig(
        lanes=tuple(parse_lane(lane) for lane in lanes),
        forward=sections["forward"], reverse=sections["reverse"],
        seed=number(seed, "--seed", integer=True, minimum=0),
        allow_reorder=bool(args.allow_reorder or file.get("allow_reorder", False)),
        bind=args.bind or file.get("bind", "127.0.0.1"),
        map_sources=bool(args.map_sources or file.get("map_sources", False)))


# --- command line --------------------------------------------------------------------------

EXAMPLES = """\
examples:
  # 5 % random loss and 20 ms each way for a receiver listening on 5004/5005:
  impairment_relay.py --lane 40000:127.0.0.1:5004@40100 --lane 40001:127.0.0.1:5005@40101 \\
      --forward-loss 5% --forward-delay 20 --reverse-delay 20 --seed 7 \\
      --ready-file /tmp/relay.ready --stats-json /tmp/relay.json
  # 800 kbit/s bottleneck with a 400 ms drop-tail queue, 20 ms each way:
  impairment_relay.py --lane 40000:127.0.0.1:5004@40100 --lane 40001:127.0.0.1:5005@40101 \\
      --forward-rate 800 --forward-queue-ms 400 --forward-delay 20 --reverse-delay 20
  # the rate falls from 2000 to 600 kbit/s 10 s after the first packet, recovers at 20 s:
  impairment_relay.py --lane 40000:127.0.0.1:5004 --forward-schedule 0:2000,10:600,20:2000 --forward-queue-ms 300
  # which packets does seed 7 drop among the first 20 at 10 %?
  impairment_relay.py --forward-loss 0.1 --seed 7 --print-drops 20

config file (--config), every key optional; flags override it:
  {"lanes": ["40000:127.0.0.1:5004@40100"], "seed": 7, "bind": "127.0.0.1", "allow_reorder": false, "map_sources": false,
   "forward": {"loss": 0.05, "burst": {"enter": 0.01, "length": 4, "loss": 1.0}, "delay_ms": 20,
               "jitter_ms": 5, "rate_kbps": 800, "queue_ms": 400, "schedule": [[0, 2000], [10, 600]]},
   "reverse": {"delay_ms": 20}}

The receiver must send its RTCP to the inner port (40100/40101 above): that is where the relay
listens for feedback. Stop the relay with SIGINT or SIGTERM; exit status 0 once the stats are
written, 2 for a bad argument, 1 when a socket cannot be bound.
"""


class OneLineArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{PROGRAM}: {message} (see --help)\n")
        sys.exit(2)


def argument_parser():
    parser = OneLineArgumentParser(
        prog="impairment_relay.py", description=__doc__.split("\n\nAlso an importable")[0],
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lane", action="append", metavar="LISTEN_PORT:HOST:PORT[@INNER_PORT]",
                        help="a relayed port pair (repeat for RTP and RTCP); port 0 = any free port")
    parser.add_argument("--bind", metavar="ADDRESS", help="address of every relay socket (default 127.0.0.1; ::1 for IPv6)")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (see below)")
    parser.add_argument("--seed", metavar="N", help="seed of the loss and jitter generators (default 1)")
    parser.add_argument("--allow-reorder", action="store_true", default=None, help="let jitter reorder packets")
    parser.add_argument("--map-sources", action="store_true", default=None,
                        help="an inner socket per source, as a NAT maps them (in front of a TURN server)")
    for direction, towards in (("forward", "sender -> receiver"), ("reverse", "receiver -> sender (feedback)")):
        group = parser.add_argument_group(f"{direction} link ({towards})")
        flag = f"--{direction}-"
        group.add_argument(flag + "loss", dest=f"{direction}_loss", metavar="P", help="random loss: 0.05 or 5%%")
        group.add_argument(flag + "burst", dest=f"{direction}_burst", metavar="ENTER:LENGTH[:LOSS]",
                           help="Gilbert-Elliott bursts: P(enter), mean length in packets, loss inside (default 1)")
        group.add_argument(flag + "delay", dest=f"{direction}_delay_ms", metavar="MS", help="one-way delay")
        group.add_argument(flag + "jitter", dest=f"{direction}_jitter_ms", metavar="MS", help="delay varies uniformly by +-MS")
        group.add_argument(flag + "rate", dest=f"{direction}_rate_kbps", metavar="KBPS", help="bottleneck rate (0 = unlimited)")
        group.add_argument(flag + "queue-ms", dest=f"{direction}_queue_ms", metavar="MS",
                           help="drop-tail queue holding MS at the current rate (default: unlimited)")
        group.add_argument(flag + "queue-bytes", dest=f"{direction}_queue_bytes", metavar="BYTES",
                           help="drop-tail queue of BYTES instead")
        group.add_argument(flag + "schedule", dest=f"{direction}_schedule", metavar="S:KBPS,...",
                           help="rate over time, seconds since the first packet: 0:2000,10:600,20:2000")
    output = parser.add_argument_group("output")
    output.add_argument("--ready-file", metavar="PATH", help="written atomically, as JSON ports, once every socket is bound")
    output.add_argument("--stats-json", metavar="PATH", help="statistics written on exit")
    output.add_argument("--packet-log", metavar="PATH",
                        help="CSV, one line per packet: direction,lane,arrival_ns,departure_ns,size,reason")
    output.add_argument("--duration", metavar="SECONDS", help="stop by itself after SECONDS")
    output.add_argument("--print-drops", metavar="N", help="print the loss model's drops among N packets per direction, and exit")
    for key in IMPAIRMENT_KEYS:
        for direction in DIRECTIONS:
            parser.set_defaults(**{f"{direction}_{key}": None})
    return parser


def write_atomically(path, text):
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def main(argv=None):
    args = argument_parser().parse_args(argv)
    try:
        config = relay_config(args)
        duration = number(args.duration, "--duration") if args.duration is not None else None
        if args.print_drops is not None:
            count = number(args.print_drops, "--print-drops", integer=True)
            drops = {d: predicted_drops(getattr(config, d), config.seed, d, count) for d in DIRECTIONS}
            print(json.dumps(drops))
            return 0
        if not config.lanes:
            raise ConfigError("no --lane given: expected LISTEN_PORT:HOST:PORT[@INNER_PORT], such as 40000:127.0.0.1:5004@40100")
        packet_log = open(args.packet_log, "w", encoding="utf-8", buffering=1 << 16) if args.packet_log else None
    except ConfigError as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        return 2
    except OSError as error:
        sys.stderr.write(f"{PROGRAM}: --packet-log {args.packet_log}: cannot create: {error.strerror}\n")
        return 2

    relay = Relay(config, packet_log)
    for number_of_signal in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number_of_signal, lambda *_: relay.request_stop())
    try:
        lanes = relay.bind()
    except ConfigError as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        return 2
    except BindError as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        return 1
    if packet_log is not None:
        packet_log.write("direction,lane,arrival_ns,departure_ns,size,reason\n")
    if args.ready_file:
        write_atomically(args.ready_file, json.dumps({"pid": os.getpid(), "lanes": lanes}) + "\n")
    print("ready", flush=True)
    relay.run(duration)
    if packet_log is not None:
        packet_log.close()
    stats = relay.stats()
    if args.stats_json:
        write_atomically(args.stats_json, json.dumps(stats, indent=1) + "\n")
    for direction in DIRECTIONS:
        packets = stats[direction]["packets"]
        sys.stderr.write(f"{PROGRAM}: {direction}: " + ", ".join(f"{k} {v}" for k, v in packets.items()) + "\n")
    relay.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
