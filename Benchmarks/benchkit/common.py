"""Running children and measuring them from outside, rounds, medians and tables."""

import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time

FPS = 30


class ToolFailed(Exception):
    def __init__(self, message, returncode=None, output=""):
        super().__init__(message)
        self.returncode, self.output = returncode, output


def measure(cmd, workdir, label, timeout_s=None, interrupt_ok=False, private_memory=False):
    """Runs cmd to completion; returns wall s, CPU s and peak RSS MB from wait4. A child still
    running after timeout_s gets SIGINT, then SIGKILL 10 s later, and counts as failed unless
    interrupt_ok and it then exits with status 0. private_memory: also its peak private memory
    (PrivateMemoryPeak)."""
    log_path = os.path.join(workdir, f"{label}.log")
    with open(log_path, "wb") as log:
        start = time.monotonic()
        child = subprocess.Popen(cmd, cwd=workdir, stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=subprocess.STDOUT)
        sampler = PrivateMemoryPeak(child.pid) if private_memory else None
        status, usage, timed_out = wait_with_usage(child, timeout_s)
        wall = time.monotonic() - start
    returncode = child.returncode = os.waitstatus_to_exitcode(status)
    if returncode != 0 or (timed_out and not interrupt_ok):
        output = log_tail(log_path)
        reason = f"still running after {timeout_s} s" if timed_out else f"exited with {returncode}"
        raise ToolFailed(f"{label} {reason}: {' '.join(cmd)}\n{output}", returncode, output)
    result = {"wallSeconds": wall, "cpuSeconds": usage.ru_utime + usage.ru_stime,
              "userSeconds": usage.ru_utime, "systemSeconds": usage.ru_stime,
              "peakRssMB": usage.ru_maxrss / 1024}
    if sampler:
        result["peakPrivateMB"] = sampler.stop()
    if timed_out:
        result["interrupted"] = True
    return result


class PrivateMemoryPeak:
    """The highest anonymous memory (heap, stacks, written copies of library data: what the
    process alone holds) of a running process, read from /proc/PID/smaps_rollup every 20 ms on a
    thread of its own. ru_maxrss also counts the pages of the libraries and the program it maps,
    which the page cache shares with every process that maps them; this kernel maps a touched
    file a whole large folio at a time."""

    def __init__(self, pid):
        import threading
        self.pid, self.peak_kb, self.done = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.wait(0.02):
            try:
                with open(f"/proc/{self.pid}/smaps_rollup") as f:
                    anonymous = next((int(line.split()[1]) for line in f if line.startswith("Anonymous:")), 0)
            except OSError:
                continue  # gone, or a zombie: the thread ends at stop()
            self.peak_kb = max(self.peak_kb, anonymous)

    def stop(self):
        """The peak in MB; call once the process has ended."""
        self.done.set()
        self.thread.join()
        return self.peak_kb / 1024


def wait_with_usage(child, timeout_s):
    """(wait status, rusage, timed out) of `child`, reaped with wait4."""
    if timeout_s is None:
        _, status, usage = os.wait4(child.pid, 0)
        return status, usage, False
    deadline = time.monotonic() + timeout_s
    signals = [(deadline, signal.SIGINT), (deadline + 10, signal.SIGKILL)]
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            return status, usage, time.monotonic() > deadline
        if signals and time.monotonic() > signals[0][0]:
            child.send_signal(signals.pop(0)[1])
        time.sleep(0.05)


def stop_process(process, sig, timeout_s):
    """Sends `sig` to a child that still runs, waits up to `timeout_s`, then kills it."""
    if process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def log_tail(path, size=2000):
    with open(path, "rb") as log:
        return log.read()[-size:].decode(errors="replace")


def make_clip(workdir, width, height, frames):
    path = os.path.join(workdir, f"clip{width}x{height}x{frames}.y4m")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        f"testsrc2=size={width}x{height}:rate={FPS}", "-frames:v", str(frames),
                        "-pix_fmt", "yuv420p", path], check=True)
    return path


class UDPSinks:
    """Binds an RTP port and the RTCP port above it on 127.0.0.1 and never reads them: the
    senders pay the whole loopback delivery, full queues drop silently (no ICMP port
    unreachable), and no reader competes for the CPU."""

    def __enter__(self):
        for _ in range(100):
            port = random.randrange(20000, 60000, 2)
            sockets = []
            try:
                for offset in (0, 1):
                    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    sockets.append(sink)
                    sink.bind(("127.0.0.1", port + offset))
            except OSError:
                for sink in sockets:
                    sink.close()
                continue
            self.port, self.sockets = port, sockets
            return self
        raise OSError("no free even UDP port pair on 127.0.0.1")

    def __exit__(self, *exc):
        for sink in self.sockets:
            sink.close()


def run_rounds(tools, rounds):
    """tools: name -> function returning a result dict. The order rotates each round so
    that no tool always runs first (cold caches) or last."""
    names = list(tools)
    results = {name: [] for name in names}
    for round_index in range(rounds):
        for name in rotated(names, round_index):
            results[name].append(tools[name]())
            print(f"  round {round_index + 1}/{rounds}: {name} done", file=sys.stderr)
    return results


def rotated(items, shift):
    shift %= max(1, len(items))
    return items[shift:] + items[:shift]


def median_of(runs):
    """Median of every numeric field over the rounds (fields that are None in a round are
    left out of that field's median)."""
    keys = {key for run in runs for key, value in run.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}
    medians = {}
    for key in sorted(keys):
        values = [run[key] for run in runs if isinstance(run.get(key), (int, float))]
        medians[key] = statistics.median(values) if values else None
    return medians


def ratio(a, b):
    return a / b if b else float("nan")


def paired(runs, name, other, key):
    """Median over rounds of run[name] / run[other] for key. Both ran in the same round, close
    in time, so this cancels most of the machine's drift from round to round."""
    return statistics.median(ratio(a[key], b[key]) for a, b in zip(runs[name], runs[other]))


def table(headers, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]

    def line(cells):
        return "  ".join(str(cell).ljust(width) if index == 0 else str(cell).rjust(width)
                         for index, (cell, width) in enumerate(zip(cells, widths)))
    return "\n".join([line(headers), line(["-" * width for width in widths])] + [line(row) for row in rows])


def goal(ok):
    return "met" if ok else "NOT met"


def cell(value, digits=1, suffix=""):
    """A table cell: the number with `digits` decimals, or a dash when there is none."""
    if value is None or value != value:
        return "-"
    return f"{value:.{digits}f}{suffix}"


class MachineLoad:
    """What else the shared machine was doing during a case: the 1-minute load average at the
    start and the end, and how busy all CPUs were in between (/proc/stat), ours included."""

    def __enter__(self):
        self.start_load = self.load_average()
        self.start_ticks = self.cpu_ticks()
        return self

    def __exit__(self, *exc):
        self.end_load = self.load_average()
        busy_start, total_start = self.start_ticks
        busy_end, total_end = self.cpu_ticks()
        self.busy_percent = 100 * (busy_end - busy_start) / max(1, total_end - total_start)

    def report(self):
        return {"loadAverageStart": self.start_load, "loadAverageEnd": self.end_load,
                "cpuBusyPercent": self.busy_percent, "cpus": os.cpu_count()}

    @staticmethod
    def describe(load):
        return (f"machine: {load['cpus']} CPUs, load average {load['loadAverageStart']:.2f} at the start, "
                f"{load['loadAverageEnd']:.2f} at the end, CPUs {load['cpuBusyPercent']:.0f} % busy "
                f"over the case (this benchmark included)")

    @staticmethod
    def load_average():
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])

    @staticmethod
    def cpu_ticks():
        with open("/proc/stat") as f:
            fields = [int(value) for value in f.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        total = sum(fields[:8])       # guest time is already inside user and nice
        return total - idle, total
