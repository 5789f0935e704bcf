"""compare.py memory: the peak RSS (wait4's ru_maxrss) of camrtp's streaming commands at
1280x720@30 with the send case's encoder settings, each for SECONDS of the test pattern in real
time: send to a UDP sink, publish to an aiortc WHIP endpoint, serve to 1 and to 4 aiortc
viewers; and vpxenc at the same settings, libvpx alone, as the floor. publish and serve run in a
network namespace of their own whose veth carries 127.0.0.2 (aioice skips 127.0.0.1), as the
end-to-end tests do: this case needs root, ip (iproute2) and Debian's /usr/bin/python3 with
aiortc. Standard library only."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

from .common import FPS, PrivateMemoryPeak, ToolFailed, UDPSinks, make_clip, measure, median_of, table, wait_with_usage
from .encoder_settings import camrtp_encoder_args, vpxenc_args

WIDTH, HEIGHT, KBPS = 1280, 720, 1500
SECONDS = 10
SOURCE = f"testsrc:{WIDTH}x{HEIGHT}@{FPS}"
VIEWER_COUNTS = (1, 4)
NAMESPACE_ADDRESS = "127.0.0.2"
TOOLS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Tests", "Tools")
PYTHON = "/usr/bin/python3"
START_TIMEOUT_S = 60


class Namespace:
    """A network namespace with lo and a veth carrying 127.0.0.2/32, removed on exit."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        ip = lambda *args: subprocess.run(["ip", *args], check=True, capture_output=True)
        ip("netns", "add", self.name)
        try:
            ip("-n", self.name, "link", "set", "lo", "up")
            ip("-n", self.name, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
            ip("-n", self.name, "addr", "add", f"{NAMESPACE_ADDRESS}/32", "dev", "v0")
            ip("-n", self.name, "link", "set", "v0", "up")
            ip("-n", self.name, "link", "set", "v1", "up")
            deadline = time.monotonic() + 5
            while b"LOWER_UP" not in ip("-n", self.name, "-o", "link", "show", "v0").stdout:
                if time.monotonic() > deadline:
                    raise ToolFailed(f"v0 in {self.name} never reported its carrier")
                time.sleep(0.01)
        except (subprocess.CalledProcessError, ToolFailed):
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)

    def command(self, arguments):
        return ["ip", "netns", "exec", self.name] + arguments


class Tool:
    """A child whose output lines are collected as they come, for waiting on one."""

    def __init__(self, command, log_path):
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.lines, self.condition = [], threading.Condition()
        self.log = open(log_path, "w")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.log.write(line)
            with self.condition:
                self.lines.append(line)
                self.condition.notify_all()
        with self.condition:
            self.lines.append(None)
            self.condition.notify_all()

    def wait_for(self, predicate, timeout_s=START_TIMEOUT_S):
        deadline = time.monotonic() + timeout_s
        seen = 0
        with self.condition:
            while True:
                while seen < len(self.lines):
                    line = self.lines[seen]
                    seen += 1
                    if line is None:
                        return None
                    if predicate(line):
                        return line
                if not self.condition.wait(max(0, deadline - time.monotonic())) and time.monotonic() > deadline:
                    return None

    def frames(self):
        """The highest frame count an aiortc tool reported."""
        counts = [json.loads(line).get("n", 0) for line in self.lines if line and '"frame"' in line]
        return max(counts, default=0)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def peak_memory(tool, label, timeout_s):
    """Waits for `tool` to end; returns its peak RSS and its peak private memory in MB."""
    sampler = PrivateMemoryPeak(tool.process.pid)
    status, usage, timed_out = wait_with_usage(tool.process, timeout_s)
    private = sampler.stop()
    tool.process.returncode = os.waitstatus_to_exitcode(status)
    if tool.process.returncode != 0 or timed_out:
        raise ToolFailed(f"{label} exited with {tool.process.returncode}: {''.join(l for l in tool.lines[-20:] if l)}")
    return {"peakRssMB": usage.ru_maxrss / 1024, "peakPrivateMB": private}


def bench_memory(args, workdir):
    camrtp_args = camrtp_encoder_args(KBPS) + ["--source", SOURCE, "--duration", str(SECONDS)]
    clip = make_clip(workdir, WIDTH, HEIGHT, SECONDS * FPS)
    runs = {name: [] for name in ["vpxenc matched (file)", "camrtp send", "camrtp publish"]
            + [f"camrtp serve, {count} viewer{'s' if count > 1 else ''}" for count in VIEWER_COUNTS]}
    for round_index in range(args.rounds):
        out = os.path.join(workdir, "memory-vpxenc.ivf")
        result = measure(["vpxenc", "--quiet"] + vpxenc_args(KBPS, "matched") + ["-o", out, clip], workdir, "memory-vpxenc",
                         private_memory=True)
        runs["vpxenc matched (file)"].append({"peakRssMB": result["peakRssMB"], "peakPrivateMB": result["peakPrivateMB"]})

        with UDPSinks() as sinks:
            result = measure([args.camrtp, "send", "--to", f"127.0.0.1:{sinks.port}"] + camrtp_args, workdir, "memory-send",
                             private_memory=True)
        runs["camrtp send"].append({"peakRssMB": result["peakRssMB"], "peakPrivateMB": result["peakPrivateMB"]})

        with Namespace(f"camrtp-bench-{os.getpid()}") as namespace:
            runs["camrtp publish"].append(publish(args, workdir, namespace, camrtp_args))
            for count in VIEWER_COUNTS:
                name = f"camrtp serve, {count} viewer{'s' if count > 1 else ''}"
                runs[name].append(serve(args, workdir, namespace, camrtp_args, count))
        print(f"  round {round_index + 1}/{args.rounds} done", file=sys.stderr)
    return {"source": SOURCE, "seconds": SECONDS, "kbps": KBPS, "runs": runs,
            "medians": {name: median_of(values) for name, values in runs.items()}}


def publish(args, workdir, namespace, camrtp_args):
    endpoint = Tool(namespace.command([PYTHON, "-u", os.path.join(TOOLS_DIR, "whip_endpoint.py")]),
                    os.path.join(workdir, "memory-whip-endpoint.log"))
    try:
        listening = endpoint.wait_for(lambda line: '"listening"' in line)
        if not listening:
            raise ToolFailed("the WHIP endpoint did not start (needs aiortc for /usr/bin/python3)")
        port = json.loads(listening)["port"]
        publisher = Tool(namespace.command([args.camrtp, "publish", "--whip", f"http://127.0.0.1:{port}/whip",
                                            "--local-address", NAMESPACE_ADDRESS] + camrtp_args),
                         os.path.join(workdir, "memory-publish.log"))
        memory = peak_memory(publisher, "camrtp publish", SECONDS + START_TIMEOUT_S)
        publisher.stop()
        return memory | {"framesDecoded": endpoint.frames()}
    finally:
        endpoint.stop()


def serve(args, workdir, namespace, camrtp_args, viewer_count):
    server = Tool(namespace.command([args.camrtp, "serve", "--http", "127.0.0.1:0", "--local-address", NAMESPACE_ADDRESS]
                                    + camrtp_args), os.path.join(workdir, f"memory-serve-{viewer_count}.log"))
    viewers = []
    try:
        line = server.wait_for(lambda line: "serving" in line and " at http" in line)
        if not line:
            raise ToolFailed(f"camrtp serve did not start: {''.join(l for l in server.lines if l)}")
        url = line.split(" at ", 1)[1].split(" ", 1)[0] + "whep"
        for index in range(viewer_count):
            viewers.append(Tool(namespace.command([PYTHON, "-u", os.path.join(TOOLS_DIR, "whep_viewer.py"), "--url", url,
                                                   "--frames", "1000000"]),
                                os.path.join(workdir, f"memory-viewer-{viewer_count}-{index}.log")))
        memory = peak_memory(server, "camrtp serve", SECONDS + START_TIMEOUT_S)
        server.stop()
        return memory | {"framesDecoded": min(viewer.frames() for viewer in viewers)}
    finally:
        for viewer in viewers:
            viewer.stop()
        server.stop()


def print_memory(report, rounds):
    medians = report["medians"]
    floor = medians["vpxenc matched (file)"]
    print(f"\n== memory: {report['source']} for {report['seconds']} s in real time, VP8 {report['kbps']} kbit/s with the send "
          f"case's matched settings, peak RSS (ru_maxrss) and peak private memory (anonymous, sampled every 20 ms), "
          f"medians of {rounds} rounds ==")
    rows = []
    for name, value in medians.items():
        frames = value.get("framesDecoded")
        rows.append([name, f"{value['peakRssMB']:.1f}", f"{value['peakRssMB'] - floor['peakRssMB']:+.1f}",
                     f"{value['peakPrivateMB']:.1f}", f"{value['peakPrivateMB'] - floor['peakPrivateMB']:+.1f}",
                     f"{value['peakRssMB'] - value['peakPrivateMB']:.1f}", "" if frames is None else f"{frames:.0f}"])
    print(table(["program", "peak RSS MB", "above vpxenc MB", "private MB", "above vpxenc MB", "mapped files MB",
                 "frames decoded by the peer (fewest)"], rows))
    print("private: what the process alone holds (heap, stacks, written pages); mapped files: RSS less private, the "
          "pages of the program and its libraries, shared through the page cache (peaks sampled apart, so approximate)")
