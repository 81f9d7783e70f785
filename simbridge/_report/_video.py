"""`frames/` (JPEGs named by sim time, e.g. 000012.500.jpg) → one H.264 MP4.

ffmpeg is the one imageio-ffmpeg ships inside its wheel, so no system ffmpeg is needed. The
frames are fed through the concat demuxer with each frame's own duration (the next frame's
sim time minus its own), so video time = sim time − the first frame's sim time, even when
the grabber skipped frames.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from simbridge._errors import BundleError

#: output frame rate: seeking resolution of the page's cursor
FPS = 5
#: frames wider than this are scaled down (the page shows them at about this size)
MAX_WIDTH_PX = 960
#: screen.mp4 keeps the frames' size up to this width
MAX_SCREEN_WIDTH_PX = 1280


#: the MP4 comment that records the sim time of video time 0
T0_TAG = "simbridge t0_s="
#: the bundle's own copy of the screen video
SCREEN_MP4 = "screen.mp4"
#: screen.mp4 is an archive of what the agent saw: better quality than the page's copy
SCREEN_CRF = 26


@dataclass(frozen=True)
class Video:
    path: Path
    t0_s: float  # sim time of video time 0
    t1_s: float  # sim time of the last frame
    n_frames: int
    crf: int = 0
    max_kbps: int | None = None


def frame_times(frames_dir: Path) -> list[tuple[float, Path]]:
    """(sim time, file) of every frame whose name is a number, in time order."""
    out = []
    for p in frames_dir.glob("*.jpg"):
        try:
            out.append((float(p.stem), p))
        except ValueError:
            continue  # not a timed frame (a stray file): not part of the video
    return sorted(out)


def encode_within(frames_dir: Path, out: Path, budget_bytes: int) -> Video | None:
    """One pass of capped CRF: CRF 30 quality unless that would exceed `budget_bytes` over the
    video's length, then x264's rate control holds the bitrate to the budget (a 10-minute
    episode's page must stay openable and mailable)."""
    frames = frame_times(frames_dir)
    if not frames:
        return None
    duration_s = max(1.0, frames[-1][0] - frames[0][0] + 1.0)
    return encode_frames(frames_dir, out, max_kbps=int(budget_bytes * 8 * 0.9 / duration_s / 1000))


def encode_frames(
    frames_dir: Path,
    out: Path,
    *,
    fps: int = FPS,
    crf: int = 30,
    max_width_px: int = MAX_WIDTH_PX,
    max_kbps: int | None = None,
) -> Video | None:
    """Encode the timed frames into `out` (H.264, yuv420p, faststart); None without frames. The
    first frame's sim time goes into the MP4's comment (`video_t0_s` reads it back)."""
    import imageio_ffmpeg

    frames = frame_times(frames_dir)
    if not frames:
        return None
    last_dt = (frames[-1][0] - frames[-2][0]) if len(frames) > 1 else 1.0
    lines = ["ffconcat version 1.0"]
    for i, (t, p) in enumerate(frames):
        dur = (frames[i + 1][0] - t) if i + 1 < len(frames) else last_dt
        lines += [f"file '{p.resolve().as_posix()}'", f"duration {max(dur, 1.0 / fps):.6f}"]
    lines.append(f"file '{frames[-1][1].resolve().as_posix()}'")  # the concat demuxer drops the last duration
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "frames.ffconcat"
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cmd = [
            imageio_ffmpeg.get_ffmpeg_exe(),
            "-y",
            "-loglevel",
            "error",
            "-safe",
            "0",
            "-f",
            "concat",
            "-i",
            str(listing),
            "-vf",
            f"scale='min({max_width_px},iw)':-2,fps={fps},format=yuv420p",
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-crf",
            str(crf),
        ]
        if max_kbps is not None:
            cmd += ["-maxrate", f"{max(max_kbps, 20)}k", "-bufsize", f"{2 * max(max_kbps, 20)}k"]
        cmd += ["-metadata", f"comment={T0_TAG}{frames[0][0]:.3f}", "-movflags", "+faststart", "-f", "mp4", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["ffmpeg failed"])[-1]
        raise BundleError(f"{frames_dir}: cannot encode the frames into a video: {detail}")
    return Video(out, frames[0][0], frames[-1][0], len(frames), crf, max_kbps)


def video_t0_s(video: Path) -> float | None:
    """The sim time of video time 0 as `encode_frames` recorded it (None: not a simbridge MP4)."""
    import imageio_ffmpeg

    proc = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(video)], capture_output=True, text=True, timeout=60
    )  # no output file: exits 1, prints the metadata
    m = re.search(re.escape(T0_TAG) + r"(-?[0-9.]+)", proc.stderr)
    return float(m.group(1)) if m else None


def encode_screen_video(bundle_dir: str | Path) -> Path | None:
    """Encode the bundle's frames/ into BUNDLE/screen.mp4 (H.264) and re-seal its manifest, so
    `simbridge verify` still accepts the bundle. None when there are no frames.

    A finished bundle (one with manifest.json) is re-sealed only when it matches its manifest
    now: re-hashing a tampered bundle would bless the tampering, so that is a BundleError. An
    unfinished bundle (no manifest) gets the video and stays unsealed. The video is written
    to a *.tmp name and renamed, so an interrupted encode never leaves a half file listed."""
    from simbridge._bundle import add_to_manifest
    from simbridge._verify import manifest_problems

    bundle = Path(bundle_dir)
    frames = bundle / "frames"
    if not frames.is_dir() or not frame_times(frames):
        return None
    sealed = (bundle / "manifest.json").is_file()
    if sealed:
        # screen.mp4 itself is re-made from the sealed frames: only the other files must match
        problems = [x for x in manifest_problems(bundle) if not x.startswith(f"{bundle / SCREEN_MP4}:")]
        if problems:
            raise BundleError(
                f"{bundle}: not adding {SCREEN_MP4}: the bundle does not match its manifest ({problems[0]})"
            )
    out = bundle / SCREEN_MP4
    with tempfile.TemporaryDirectory() as tmp:
        video = encode_frames(frames, Path(tmp) / SCREEN_MP4, crf=SCREEN_CRF, max_width_px=MAX_SCREEN_WIDTH_PX)
        assert video is not None  # frames were checked above
        part = bundle / (SCREEN_MP4 + ".tmp")
        try:
            shutil.copyfile(video.path, part)
            os.replace(part, out)
        except OSError as exc:
            part.unlink(missing_ok=True)
            raise BundleError(f"{out}: cannot write: {exc.strerror or exc}") from None
    if sealed:
        add_to_manifest(bundle, SCREEN_MP4)
    return out
