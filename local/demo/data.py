"""What the demo contains: feed posts, items and loose objects, built as records plus object bodies.

Pure functions of (ids, clock, seeded RNG, media): nothing here talks to AWS. Wording and layout are
seeded, so every run shows the same demo; ids, keys and timestamps are fresh on every run.
Object maps are ``key -> (body, content type)``; post keys are relative to the agent's folder,
item and workspace keys are relative to the workspace (as the read plane serves them).
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

from core.ids import iso, new_id
from core.models.read_plane import FeedPage, PostKind
from core.models.records import ItemRecord, PostRecord

from .media import Image, MediaLibrary, Video, simple_pdf, tone_wav

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


# (name, kind, workspace-relative key, mime type, folder, origin, active); bodies are made in build_items.
_ITEMS: list[tuple[str, str, str, str, str, str, bool]] = [
    ("Brochure", "document", "assets/docs/brochure.pdf", "application/pdf", "docs", "upload", True),
    ("Price list", "document", "assets/docs/price-list.csv", "text/csv", "docs", "import", True),
    ("Logo", "image", "assets/logo.png", "image/png", "brand", "upload", True),
    ("Hero image", "image", "media/hero.jpg", "image/jpeg", "brand", "generated", True),
    ("Launch video", "video", "{agent}/media/video-1.mp4", "video/mp4", "media", "generated", True),
    ("Jingle", "audio", "assets/audio/jingle.wav", "audio/wav", "media", "generated", True),
    ("Booking page", "link", "assets/links/booking.uri", "text/uri-list", "links", "import", True),
    ("FAQ", "text", "assets/notes/faq.md", "text/markdown", "knowledge", "upload", True),
    ("Opening hours", "text", "assets/notes/opening-hours.txt", "text/plain", "knowledge", "import", True),
    ("Old menu", "document", "assets/docs/menu-2024.pdf", "application/pdf", "docs", "upload", False),
    ("Old logo", "image", "assets/logo-old.png", "image/png", "brand", "upload", False),
    ("Draft notes", "text", "assets/notes/draft.txt", "text/plain", "knowledge", "upload", False),
]


def _item_body(key: str, brand: str, media: MediaLibrary, agent_objects: Objects) -> bytes:
    name = key.rsplit("/", 1)[-1]
    bodies = {
        "brochure.pdf": lambda: simple_pdf(f"{brand} brochure", ["Who we are", "What we offer", "Where to find us"]),
        "menu-2024.pdf": lambda: simple_pdf(f"{brand} menu 2024", ["Retired."]),
        "price-list.csv": lambda: b"item,price_eur\nsmall,3.20\nregular,3.90\nlarge,4.50\n",
        "logo.png": lambda: media.logos["logo.png"].data,
        "logo-old.png": lambda: media.logos["logo-old.png"].data,
        "hero.jpg": lambda: media.images[0].data,
        "jingle.wav": tone_wav,
        "booking.uri": lambda: b"https://example.com/book\r\n",
        "faq.md": f"# {brand} FAQ\n\n**Do you take bookings?** Yes, online.\n".encode,
        "opening-hours.txt": lambda: b"Mon-Fri 7:00-18:00\nSat-Sun 8:00-16:00\n",
        "draft.txt": lambda: b"Ideas for next month (not ready yet).\n",
    }
    if name in bodies:
        return bodies[name]()
    return agent_objects[f"media/{name}"][0]


def build_items(
    agent_id: str, brand: str, media: MediaLibrary, agent_objects: Objects, *, now_ms: int, limit: int | None = None
) -> tuple[list[ItemRecord], Objects]:
    """The agent's items and their workspace-relative objects (agent media is referenced under its folder)."""
    items: list[ItemRecord] = []
    objects: Objects = {}
    order: dict[str, int] = {}
    for n, (name, kind, key_template, mime, folder, origin, active) in enumerate(_ITEMS[:limit]):
        key = key_template.format(agent=f"projects/{agent_id}")
        body = _item_body(key, brand, media, agent_objects)
        objects[key] = (body, f"{mime}; charset=utf-8" if mime.startswith("text/") else mime)
        order[folder] = order.get(folder, -1) + 1
        items.append(
            ItemRecord.model_validate(
                {
                    "id": new_id("item"),
                    "agentId": agent_id,
                    "name": name,
                    "kind": kind,
                    "r2Key": key,
                    "mimeType": mime,
                    "size": len(body),
                    "folder": folder,
                    "order": order[folder],
                    "origin": origin,
                    "active": active,
                    "updatedAt": iso_ms(now_ms - (n + 1) * 26 * HOUR_MS),
                }
            )
        )
    return items, objects
