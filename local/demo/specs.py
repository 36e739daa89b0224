"""What the demo's workspaces are: their people, plans, brand, agents and the documents they publish.

Pure data and pure functions (nothing here talks to AWS); ``local.demo`` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.ids import new_id

from .data import Objects, json_object, text_object


@dataclass(frozen=True)
class Spec:
    name: str
    slug: str
    owner: tuple[str, str]  # (email, name)
    plan: str
    credits: int
    palette: list[str]
    font: str
    agent: tuple[str, str]  # (slug, name) of the published agent
    member: tuple[str, str] | None = None
    draft_agent: tuple[str, str] | None = None  # an agent with nothing published (no wrap, no site)
    rate_limit: int | None = None


SPECS = [
    Spec(
        "Northwind Coffee",
        "northwind-coffee",
        ("ava@northwind.example", "Ava Lindqvist"),
        "pro",
        1000,
        ["#3d2b1f", "#d4a373", "#faedcd", "#2a9d8f"],
        "Fraunces",
        ("barista", "Northwind Barista"),
        member=("sam@northwind.example", "Sam Okafor"),
        draft_agent=("events-helper", "Events Helper"),
        rate_limit=600,
    ),
    Spec(
        "Lumen Yoga Studio",
        "lumen-yoga",
        ("maya@lumen.example", "Maya Chen"),
        "free",
        0,
        ["#5e548e", "#9f86c0", "#e0b1cb", "#f6f4f2"],
        "Inter",
        ("guide", "Lumen Guide"),
    ),
]
SUGGESTIONS = [
    {"title": "Opening hours", "prompt": "When are you open this week?"},
    {"title": "What's new", "prompt": "What did you launch recently?"},
    {"title": "Events", "prompt": "Which events are coming up?"},
    {"title": "Book a visit", "prompt": "How do I book?"},
]


def wrap(spec: Spec) -> dict[str, Any]:
    return {
        "layout": "feed",
        "greeting": f"Hi! I'm the {spec.agent[1]}. Ask me anything about {spec.name}.",
        "theme": {
            "primary": spec.palette[0],
            "accent": spec.palette[1],
            "background": spec.palette[2],
            "fontFamily": spec.font,
        },
        "avatar": "media/img-01.jpg",
        "channels": ["instagram", "site"],
        "showSuggestions": True,
    }


def site(spec: Spec) -> dict[str, Any]:
    pages = [("home", "Home"), ("news", "News"), ("events", "Events"), ("visit", "Visit")]
    return {
        "pages": [
            {"id": p, "path": f"/{p}".replace("/home", "/"), "title": t, "sections": [f"{p}-main"]} for p, t in pages
        ],
        "nav": [{"label": t, "page": p} for p, t in pages],
        "sections": [
            {"id": "home-main", "type": "hero", "title": spec.name, "image": "media/img-02.jpg"},
            {"id": "news-main", "type": "feed", "channel": "site", "category": "launch"},
            {"id": "events-main", "type": "feed", "channel": "site", "category": "events"},
            {"id": "visit-main", "type": "text", "body": "Find us on Harbour Street 12. Walk-ins welcome."},
        ],
    }


def loose_objects(spec: Spec, ws_id: str, brand_id: str, workflow_id: str, created_at: str) -> Objects:
    """Workspace files outside agents: allowlisted config and assets, plus private ones the read plane must refuse."""
    return {
        "config/site.json": json_object(site(spec)),
        "wrapper/config.json": json_object(wrap(spec)),
        f"brands/{brand_id}/palette.json": json_object({"palette": spec.palette, "fontFamily": spec.font}),
        f"workflows/{workflow_id}/suggestions.json": json_object(SUGGESTIONS),
        "meta/workspace.json": json_object({"id": ws_id, "name": spec.name, "createdAt": created_at}),
        "public/hello.txt": text_object(f"Hello from {spec.name}!\n"),
        f"conversations/{new_id('thr')}.json": json_object([{"role": "user", "content": "Do you have oat milk?"}]),
        "billing/invoice-2026-10.json": json_object({"invoice": "INV-2026-10", "amountCents": 2900, "status": "paid"}),
        "private/notes.txt": text_object("Supplier contacts and door codes: never public.\n"),
    }
