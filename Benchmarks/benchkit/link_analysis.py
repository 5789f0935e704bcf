"""The bottleneck as the relay saw it, from its per-packet log: queue delay in time windows,
queue drops, and throughput against the configured capacity.

Queue delay of a packet = its departure - its arrival - the one-way delay: the time it waited
in the drop-tail queue, its own transmission at the link rate included, plus the relay's own
scheduling lateness (its stats give that as departure_lateness_ms; well under a millisecond on
an idle machine)."""

import math

BIN_S = 1.0


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * fraction) - 1)]


class LinkAnalysis:
    def __init__(self, relay_packets, profile):
        self.profile = profile
        self.forward = sorted((p for p in relay_packets if p.direction == "forward"), key=lambda p: p.arrival_ns)
        delay_ns = profile.one_way_delay_ms * 1e6
        self.queue_delays = [((p.arrival_ns / 1e9), (p.departure_ns - p.arrival_ns - delay_ns) / 1e6)
                             for p in self.forward if p.outcome == "sent"]
        # The end of the media: the sender's last RTP packet (RTCP may go on a little longer).
        media = [p.arrival_ns for p in self.forward if p.lane == 0]
        self.last_arrival_s = max(media) / 1e9 if media else 0.0

    def queue_delay_p95_ms(self, start_s, end_s=None):
        """p95 of the queue delay of the packets that arrived in [start_s, end_s)."""
        end_s = self.last_arrival_s + 1 if end_s is None else end_s
        return percentile([delay for t, delay in self.queue_delays if start_s <= t < end_s], 0.95)

    def queue_drop_percent(self, start_s=0.0, end_s=None):
        end_s = self.last_arrival_s + 1 if end_s is None else end_s
        window = [p for p in self.forward if start_s <= p.arrival_ns / 1e9 < end_s]
        dropped = sum(1 for p in window if p.outcome == "queue")
        return 100 * dropped / len(window) if window else None

    def throughput_kbps(self, start_s, end_s):
        """Bytes that left the bottleneck (departure - one-way delay) in [start_s, end_s)."""
        delay_s = self.profile.one_way_delay_ms / 1e3
        sent = sum(p.size for p in self.forward if p.outcome == "sent"
                   and start_s <= p.departure_ns / 1e9 - delay_s < end_s)
        return sent * 8 / 1000 / (end_s - start_s) if end_s > start_s else None

    def utilisation_percent(self, start_s, end_s):
        """Throughput over [start_s, end_s) against the mean configured capacity there."""
        steps = 100
        capacities = [self.profile.capacity_kbps_at(start_s + (end_s - start_s) * (i + 0.5) / steps) for i in range(steps)]
        if end_s <= start_s or any(capacity is None for capacity in capacities):
            return None
        return 100 * self.throughput_kbps(start_s, end_s) / (sum(capacities) / steps)

    def per_second(self):
        """[(start s, capacity kbit/s, sending kbit/s, throughput kbit/s, queue delay p95 ms)]."""
        count = int(self.last_arrival_s // BIN_S) + 1
        sending = [0] * count
        for p in self.forward:
            sending[min(count - 1, int(p.arrival_ns / 1e9 // BIN_S))] += p.size
        rows = []
        for index in range(count):
            start = index * BIN_S
            rows.append((start, self.profile.capacity_kbps_at(start), sending[index] * 8 / 1000 / BIN_S,
                         self.throughput_kbps(start, start + BIN_S), self.queue_delay_p95_ms(start, start + BIN_S)))
        return rows
