"""What the demo's feeds contain: posts built as records plus the media objects they reference.

Pure functions of (ids, clock, seeded RNG, media): nothing here talks to AWS. Wording and layout are
seeded, so every run shows the same demo; ids, keys and timestamps are fresh on every run.
Object maps are ``key -> (body, content type)``; post keys are relative to the agent's folder,
item and workspace keys are relative to the workspace (as the read plane serves them). Items are built in
``items.py``; the helpers here (object bodies, times) serve both.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

from core.ids import iso, new_id
from core.models.kinds import PostKind
from core.models.read_plane import FeedPage
from core.models.records import PostRecord

from .media import Image, MediaLibrary, Video

Objects = dict[str, tuple[bytes, str]]
HOUR_MS = 3_600_000

CATEGORIES: list[str | None] = ["launch", "behind-the-scenes", "tips", "events", None]
# Weighted so that most posts reach Instagram (the filtered feed still fills its 120 cap) and some are site-only.
CHANNELS: list[list[str]] = [["instagram"], ["site"], ["instagram", "site"]]
_CHANNEL_WEIGHTS = [35, 20, 45]
# The feed's rhythm: mostly single images, then carousels, text, video, reels and stories.
KINDS: list[PostKind] = ["image", "carousel", "image", "video", "text", "reel", "image", "story"]
KINDS += ["carousel", "text", "image", "reel", "video", "story"]
_TITLES = {
    "launch": ["Something new is here", "Just launched", "Now open", "Meet the new menu", "First look"],
    "behind-the-scenes": ["How we make it", "A morning with the team", "From the workshop", "Before the doors open"],
    "tips": ["Three quick tips", "Did you know?", "Getting it right at home", "Our favourite trick"],
    "events": ["Join us this weekend", "Tasting night", "Pop-up market", "Community meetup"],
    None: ["Hello from us", "A little update", "Thank you", "Good things"],
}
_TAGS = ["local", "smallbusiness", "handmade", "community", "weekend", "new", "howto", "team"]


def json_object(doc: Any) -> tuple[bytes, str]:
    return json.dumps(doc, indent=2).encode(), "application/json"


def json_text(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"))


def text_object(text: str, mime: str = "text/plain") -> tuple[bytes, str]:
    return text.encode(), f"{mime}; charset=utf-8"


def iso_ms(ms: int) -> str:
    return iso(datetime.fromtimestamp(ms / 1000, UTC))


class _Folder:
    """Collects the objects an agent's posts reference, each stored once under ``media/`` or ``text/``."""

    def __init__(self) -> None:
        self.objects: Objects = {}
        self.posters: dict[str, str] = {}  # video key -> its poster frame's key
        self._images = 0

    def next_image(self) -> int:
        self._images += 1
        return self._images - 1

    def image(self, img: Image) -> FeedPage:
        self.objects[f"media/{img.name}"] = (img.data, img.mime)
        return FeedPage(key=f"media/{img.name}", media_type="image", width=img.width, height=img.height, order=None)

    def video(self, video: Video) -> FeedPage:
        self.objects[f"media/{video.name}"] = (video.data, "video/mp4")
        self.objects[f"media/{video.poster_name}"] = (video.poster, "image/jpeg")
        self.posters[f"media/{video.name}"] = f"media/{video.poster_name}"
        return FeedPage(
            key=f"media/{video.name}", media_type="video", width=video.width, height=video.height, order=None
        )


def _pages(kind: PostKind, n: int, rng: random.Random, media: MediaLibrary, folder: _Folder) -> list[FeedPage]:
    """The post's media: one page for single-media kinds, 2-5 ordered pages for carousels and stories."""
    if kind == "image":
        # Single images walk the whole library in turn, so every image appears in the feed.
        return [folder.image(media.images[folder.next_image() % len(media.images)])]
    if kind in ("video", "reel"):
        # Reels are vertical; videos alternate between the two landscape clips.
        return [folder.video(media.videos[-1] if kind == "reel" else media.videos[n % 2])]
    if kind == "text":
        return [folder.image(media.card)]
    if kind == "story":
        vertical = [i for i in media.images if i.height > i.width]
        pages = [folder.image(i) for i in rng.sample(vertical, rng.randint(2, min(4, len(vertical))))]
        if rng.random() < 0.3:
            pages.append(folder.video(media.videos[-1]))
    else:
        pages = [folder.image(i) for i in rng.sample(media.images, rng.randint(2, 5))]
        if len(pages) < 5 and rng.random() < 0.25:
            pages.append(folder.video(media.videos[0]))
    return [p.model_copy(update={"order": i}) for i, p in enumerate(pages)]


def build_posts(
    agent_id: str,
    brand: str,
    media: MediaLibrary,
    *,
    count: int,
    now_ms: int,
    seed: str,
    kinds: list[PostKind] = KINDS,
    unpublished_every: int = 28,
) -> tuple[list[PostRecord], Objects]:
    """``count`` posts, newest first, about 8 hours apart; every ``unpublished_every``-th is a draft."""
    rng = random.Random(seed)  # noqa: S311 - deterministic demo data, not security
    folder = _Folder()
    notes = [f"text/note-{i}.md" for i in range(4)]
    posts: list[PostRecord] = []
    at = now_ms - rng.randint(HOUR_MS, 3 * HOUR_MS)
    for n in range(count):
        at -= rng.randint(5 * HOUR_MS, 11 * HOUR_MS)
        kind = kinds[n % len(kinds)]
        category = rng.choice(CATEGORIES)
        title = rng.choice(_TITLES[category])
        caption = f"{title} at {brand}. " + rng.choice(
            ["Come say hi.", "Tell us what you think!", "Link in bio.", "See you soon.", "Swipe for more."]
        )
        pages = _pages(kind, n, rng, media, folder)
        cover = pages[0]
        key = cover.key
        if kind == "text" and n % 2:
            # Half the text posts point at a note instead of the card image.
            key = notes[(n // 2) % len(notes)]
            folder.objects[key] = text_object(f"# {title}\n\n{caption}\n", "text/markdown")
        video = kind in ("video", "reel")
        posts.append(
            PostRecord(
                id=new_id("post", at),
                agent_id=agent_id,
                key=key,
                kind=kind,
                title=title,
                sub=rng.choice([None, brand, "Limited time", "This week"]),
                caption=caption,
                hashtags=[brand.lower().replace(" ", ""), *(rng.sample(_TAGS, rng.randint(0, 3)))],
                channels=rng.choices(CHANNELS, _CHANNEL_WEIGHTS)[0],
                category=category,
                width=cover.width if key == cover.key else None,
                height=cover.height if key == cover.key else None,
                pages=pages if kind in ("carousel", "story") else [],
                poster=folder.posters[key] if video else "",
                playable=key if video else "",
                published=n % unpublished_every != unpublished_every - 1,
                created_at=iso_ms(at),
            )
        )
    return posts, folder.objects
