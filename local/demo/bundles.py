"""The media of the example bundles, made by code into their folders on first use (``.gitignore``d: the videos are
megabytes, and the recipes in ``media`` make the same files on every machine)."""

from __future__ import annotations

import json
from pathlib import Path

from local.demo.media import MediaLibrary, load_media, tone_wav


def generated_files(media: MediaLibrary) -> dict[str, bytes]:
    """Every file a bundle may name that is made here, by its path in the bundle."""
    files = {f"media/{image.name}": image.data for image in media.images}
    files |= {"media/text-card.jpg": media.card.data, "media/hero.jpg": media.images[0].data}
    for video in media.videos:
        files |= {f"media/{video.name}": video.data, f"media/{video.poster_name}": video.poster}
    files |= {f"brand/{name}": image.data for name, image in media.logos.items()}
    return files | {"audio/jingle.wav": tone_wav()}


def named_files(bundle: Path) -> set[str]:
    """The files a bundle's posts and items name (bundle-relative)."""
    named: set[str] = set()
    posts = json.loads((bundle / "posts.json").read_text()) if (bundle / "posts.json").exists() else []
    for post in posts:
        named |= {post["key"], post.get("poster", ""), post.get("playable", "")}
        named |= {page["key"] for page in post.get("pages", [])}
    items = json.loads((bundle / "items.json").read_text()) if (bundle / "items.json").exists() else []
    return (named | {item["file"] for item in items}) - {""}


def ensure_media(bundles: list[Path], cache_dir: Path) -> MediaLibrary:
    """Write into each bundle the made files it names and lacks (encoding only what ``cache_dir`` lacks)."""
    media = load_media(cache_dir)
    made = generated_files(media)
    for bundle in bundles:
        for name in sorted(named_files(bundle) & made.keys()):
            target = bundle / name
            if not target.exists() or target.read_bytes() != made[name]:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(made[name])
    return media
