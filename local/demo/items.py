"""The demo agents' items (documents, images, media, links, notes) and their workspace-relative objects.

Pure functions of (ids, clock, media), as ``data.py``'s posts: nothing here talks to AWS. An item whose body
is agent media (a launch video) refers to the object the agent's posts already hold.
"""

from __future__ import annotations

from core.ids import new_id
from core.models.records import ItemRecord

from .data import HOUR_MS, Objects, iso_ms
from .media import MediaLibrary, simple_pdf, tone_wav

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
