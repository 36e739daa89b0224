"""Real demo media: decodable JPEG/PNG images and playable H.264 MP4s made with ffmpeg's lavfi sources.

Clients of the read plane render and stream this media, so it has to be the real thing (a
placeholder byte string would hide bugs in Range handling, content types and players). A 2 MB
video costs about a second to encode, so every output is cached in ``cache_dir`` under a name
derived from its recipe: a cold run encodes everything in parallel, a warm run only reads files.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import struct
import subprocess
import wave
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# Bump to invalidate every cached file when the encoding settings change.
_RECIPE_VERSION = "1"
_JPEG = ["-frames:v", "1", "-q:v", "4", "-update", "1"]
# Constant bitrate with HRD filler keeps each ~8 s clip above 2 MB however simple the test pattern is,
# and +faststart puts the moov box first so a player can start before the whole body arrives.
_H264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-b:v", "2500k", "-minrate", "2500k", "-maxrate", "2500k"]
_H264 += ["-bufsize", "1250k", "-x264-params", "nal-hrd=cbr", "-movflags", "+faststart", "-an"]

# Feed sizes: square, portrait (4:5), story (9:16) and landscape (16:9).
_SQUARE, _PORTRAIT, _STORY, _WIDE = (1080, 1080), (1080, 1350), (1080, 1920), (1280, 720)
# (size, lavfi source with {s} for the size) of img-01.jpg, img-02.jpg, ...: distinct colours and patterns.
_STILLS: list[tuple[tuple[int, int], str]] = [
    (_SQUARE, "mandelbrot=size={s}:maxiter=256:start_scale=2.5"),
    (_PORTRAIT, "gradients=size={s}:c0=0xff6b6b:c1=0x4ecdc4:seed=4"),
    (_SQUARE, "gradients=size={s}:c0=0x6a0dad:c1=0xffd700:seed=9:type=radial"),
    (_STORY, "gradients=size={s}:c0=0x0f2027:c1=0x2c5364:c2=0xf7797d:nb_colors=3:type=spiral:seed=2"),
    (_SQUARE, "testsrc2=size={s}"),
    (_STORY, "testsrc2=size={s},hue=h=150"),
    (_WIDE, "smptehdbars=size={s}"),
    (_SQUARE, "color=c=0x1f6feb:size={s},drawgrid=w=120:h=120:t=6:c=white@0.5"),
    (_PORTRAIT, "color=c=0xff8a00:size={s},drawbox=x=140:y=200:w=800:h=950:t=24:c=white"),
    (_SQUARE, "cellauto=size=270x270:rule=110:random_fill_ratio=0.5:seed=2,scale={w}:{h}:flags=neighbor"),
    (_STORY, "gradients=size={s}:c0=0x2b5876:c1=0x4e4376:seed=21,drawgrid=w=180:h=180:t=3:c=white@0.3"),
    (_SQUARE, "rgbtestsrc=size={s}"),
    (_PORTRAIT, "yuvtestsrc=size={s},hue=s=0.6"),
    (_WIDE, "gradients=size={s}:c0=0x134e5e:c1=0x71b280:type=circular:seed=5"),
    (_STORY, "mandelbrot=size=540x960:maxiter=200:start_x=-0.7436:start_y=-0.1318:start_scale=0.3,scale={w}:{h}"),
    (_PORTRAIT, "gradients=size={s}:c0=0xee0979:c1=0xff6a00:c2=0xfef9d7:nb_colors=3:type=square:seed=11"),
]
# (file name, lavfi source, width, height) of each still, the form the cache's recipes are made from.
_IMAGES = [(f"img-{n:02d}.jpg", source, *size) for n, (size, source) in enumerate(_STILLS, start=1)]
_CARD = ("text-card.jpg", "color=c=0xf5efe6:size={s},drawbox=x=60:y=60:w=480:h=480:t=8:c=0x3d2b1f", 600, 600)
_LOGOS = [
    ("logo.png", "gradients=size={s}:c0=0x3d2b1f:c1=0xd4a373:type=radial:seed=3", 256, 256),
    ("logo-old.png", "color=c=0x888888:size={s},drawbox=x=32:y=32:w=192:h=192:t=16:c=white", 256, 256),
]
# (file name, lavfi source, width, height): the vertical one is for reels.
_VIDEOS: list[tuple[str, str, int, int]] = [
    ("video-1.mp4", "testsrc2=size={s}:rate=30:duration=8", 640, 360),
    ("video-2.mp4", "testsrc2=size={s}:rate=30:duration=8,hue=h=120,hflip", 640, 360),
    ("video-3.mp4", "testsrc2=size={s}:rate=30:duration=8,hue=h=240", 360, 640),
]


@dataclass(frozen=True)
class Image:
    name: str
    data: bytes
    width: int
    height: int
    mime: str


@dataclass(frozen=True)
class Video:
    name: str
    poster_name: str
    data: bytes
    poster: bytes
    width: int
    height: int


@dataclass(frozen=True)
class MediaLibrary:
    images: list[Image]
    videos: list[Video]
    card: Image
    logos: dict[str, Image]


def _ffmpeg() -> str:
    import imageio_ffmpeg  # type: ignore[import-untyped]  # a dev dependency only, untyped: kept off other imports

    return imageio_ffmpeg.get_ffmpeg_exe()


def _cached(cache_dir: Path, name: str, args: list[str], inputs: tuple[Path, ...] = ()) -> Path:
    """Run ``ffmpeg <args> <out>`` unless a file for exactly this recipe already exists; return its path."""
    recipe = "\0".join([_RECIPE_VERSION, *args, *(p.name for p in inputs)])
    stem, ext = name.rsplit(".", 1)
    path = cache_dir / f"{stem}-{hashlib.sha256(recipe.encode()).hexdigest()[:16]}.{ext}"
    if not path.exists():
        # Write beside the target and rename, so a crash or a concurrent runner never leaves a torn file.
        tmp = cache_dir / f".{path.stem}-{os.getpid()}.tmp.{ext}"
        subprocess.run([_ffmpeg(), "-nostdin", "-v", "error", "-y", *args, str(tmp)], check=True, capture_output=True)
        os.replace(tmp, path)
    return path


def _still(cache_dir: Path, recipe: tuple[str, str, int, int]) -> Image:
    name, source, width, height = recipe
    lavfi = source.format(s=f"{width}x{height}", w=width, h=height)
    path = _cached(cache_dir, name, ["-f", "lavfi", "-i", lavfi, *_JPEG])
    mime = "image/png" if name.endswith(".png") else "image/jpeg"
    return Image(name, path.read_bytes(), width, height, mime)


def _video(cache_dir: Path, recipe: tuple[str, str, int, int]) -> Video:
    name, source, width, height = recipe
    lavfi = source.format(s=f"{width}x{height}")
    mp4 = _cached(cache_dir, name, ["-f", "lavfi", "-i", lavfi, *_H264])
    poster_name = name.replace(".mp4", "-poster.jpg")
    poster = _cached(cache_dir, poster_name, ["-ss", "2", "-i", str(mp4), *_JPEG], inputs=(mp4,))
    return Video(name, poster_name, mp4.read_bytes(), poster.read_bytes(), width, height)


def load_media(cache_dir: Path) -> MediaLibrary:
    """Every image and video of the demo, encoding only what the cache lacks (videos first: they take longest)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        videos = [pool.submit(_video, cache_dir, r) for r in _VIDEOS]
        stills = [pool.submit(_still, cache_dir, r) for r in [*_IMAGES, _CARD, *_LOGOS]]
        images = [f.result() for f in stills]
        return MediaLibrary(
            images=images[: len(_IMAGES)],
            videos=[f.result() for f in videos],
            card=images[len(_IMAGES)],
            logos={i.name: i for i in images[len(_IMAGES) + 1 :]},
        )


def tone_wav(frequency: float = 440.0, seconds: float = 1.5, rate: int = 22050) -> bytes:
    """A short mono sine jingle: a real, playable audio item without another encoder."""
    frames = b"".join(
        struct.pack(
            "<h", int(12000 * math.sin(2 * math.pi * frequency * n / rate) * min(1.0, (rate * seconds - n) / 2000))
        )
        for n in range(int(rate * seconds))
    )
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


def simple_pdf(title: str, lines: list[str]) -> bytes:
    """A minimal, valid one-page PDF (correct xref offsets), so document items open in a real viewer."""
    text = "\n".join(f"({s.replace('(', '[').replace(')', ']')}) Tj T*" for s in [title, "", *lines])
    stream = f"BT /F1 14 Tf 16 TL 72 760 Td\n{text}\nET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
