"""VP8 encoder settings of every tool. camrtp's streams use WebRTC's; "matched" gives the other
tools the same values as far as each exposes them; "reference" is the exact commands of the
project's reference measurements (no denoiser, static threshold 0, error resilience on for ffmpeg
and GStreamer). camrtp's recordings use libvpx's own real-time defaults, which are vpxenc's and
ffmpeg's when given only a deadline, cpu-used, threads, a bitrate and keyframe distances."""


def vpxenc_args(kbps, variant):
    # --ivf in both variants: without it vpxenc writes WebM whatever the file is called, and
    # camrtp writes IVF.
    args = ["--ivf", "--codec=vp8", "--rt", "--cpu-used=-6", "--threads=1", "--end-usage=cbr",
            f"--target-bitrate={kbps}", "--lag-in-frames=0"]
    if variant == "matched":
        args += ["--min-q=2", "--max-q=56", "--undershoot-pct=100", "--overshoot-pct=15",
                 "--buf-initial-sz=500", "--buf-optimal-sz=600", "--buf-sz=1000",
                 "--drop-frame=30", "--noise-sensitivity=4", "--static-thresh=1",
                 "--token-parts=0", "--max-intra-rate=900", "--kf-max-dist=3000"]
    return args


def vpxenc_recording_args(kbps, keyframe_frames=None):
    """camrtp record's settings in vpxenc: its defaults. keyframe_frames: a keyframe exactly every
    that many frames (camrtp's --keyframe-interval), else only the first (--keyframe-interval 0)."""
    keyframes = [f"--kf-min-dist={keyframe_frames}", f"--kf-max-dist={keyframe_frames}"] if keyframe_frames else ["--kf-max-dist=3000"]
    return ["--ivf", "--codec=vp8", "--rt", "--cpu-used=-6", "--threads=1", f"--target-bitrate={kbps}"] + keyframes


def ffmpeg_recording_args(kbps, keyframe_frames):
    """camrtp record's settings in ffmpeg's libvpx: its defaults, -b:v alone being VBR."""
    return ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "-6", "-threads", "1", "-b:v", f"{kbps}k",
            "-g", str(keyframe_frames), "-keyint_min", str(keyframe_frames)]


def ffmpeg_vp8_args(kbps, variant):
    args = ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "-6", "-b:v", f"{kbps}k",
            "-minrate", f"{kbps}k", "-maxrate", f"{kbps}k", "-g", "3000"]
    if variant == "reference":
        return args + ["-error-resilient", "default", "-lag-in-frames", "0", "-threads", "1",
                       "-static-thresh", "0"]
    # Buffer sizes are in bits here: 1000 ms and 500 ms at the target rate. ffmpeg derives the
    # optimal level itself (5/6 of the buffer) and has no option for it.
    return args + ["-lag-in-frames", "0", "-threads", "1", "-qmin", "2", "-qmax", "56",
                   "-undershoot-pct", "100", "-overshoot-pct", "15",
                   "-bufsize", f"{kbps}k", "-rc_init_occupancy", f"{kbps // 2}k",
                   "-drop-threshold", "30", "-noise-sensitivity", "4", "-static-thresh", "1",
                   "-max-intra-rate", "900"]


def gst_vp8enc(kbps, variant):
    element = ["vp8enc", "deadline=1", "cpu-used=-6", "end-usage=cbr",
               f"target-bitrate={kbps * 1000}", "threads=1", "lag-in-frames=0"]
    if variant == "reference":
        return element + ["error-resilient=default", "keyframe-max-dist=3000", "static-threshold=0"]
    return element + ["keyframe-max-dist=3000", "static-threshold=1", "noise-sensitivity=4",
                      "max-intra-bitrate=900", "undershoot=100", "overshoot=15",
                      "buffer-initial-size=500", "buffer-optimal-size=600", "buffer-size=1000",
                      "dropframe-threshold=30", "min-quantizer=2", "max-quantizer=56",
                      "token-partitions=0"]


def camrtp_encoder_args(kbps, variant="matched"):
    args = ["--threads", "1", "--cpu-used=-6", "--bitrate", str(kbps), "--keyframe-interval", "0"]
    if variant == "reference":
        args += ["--noise-sensitivity", "0", "--static-threshold", "0"]
    return args
