"""What the demo's workspaces are: their people, plans, the agent bundles they publish (``examples/``, which carry the
brand) and the workspace's own files (allowlisted config and assets the read plane serves beside the agents).

Pure data and pure functions (nothing here talks to AWS); ``local.demo`` writes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stack.template import ROOT

EXAMPLES = ROOT / "examples"
Files = dict[str, tuple[bytes, str]]  # workspace-relative path -> (body, content type)


@dataclass(frozen=True)
class Spec:
    name: str
    slug: str
    owner: tuple[str, str]  # (email, name)
    plan: str
    credits: int
    bundles: tuple[str, ...]  # folders of examples/, one agent each; the first is the one the demo page shows
    member: tuple[str, str] | None = None
    rate_limit: int | None = None
    store_conversations: bool = False  # switched on through the API, as an owner would


SPECS = [
    Spec(
        "Northwind Coffee",
        "northwind-coffee",
        ("ava@northwind.example", "Ava Lindqvist"),
        "pro",
        1000,
        ("northwind-barista", "northwind-events-helper"),  # the second has nothing published but a few posts
        member=("sam@northwind.example", "Sam Okafor"),
        rate_limit=600,
        store_conversations=True,  # the demo's chats leave threads to resume and to read
    ),
    Spec(
        "Lumen Yoga Studio",
        "lumen-yoga",
        ("maya@lumen.example", "Maya Chen"),
        "free",
        0,
        ("lumen-guide",),
    ),
]


def brand_fields(spec: Spec) -> dict[str, Any]:
    """The workspace's default brand's palette and font: its first bundle's brand's (``agent.json``), whose slug and
    name are the workspace's, so that publishing the bundles finds the brand as they describe it and changes nothing."""
    brand = json.loads((EXAMPLES / spec.bundles[0] / "agent.json").read_text())["brand"]
    if (brand["slug"], brand["name"]) != (spec.slug, spec.name):
        raise ValueError(f"examples/{spec.bundles[0]}/agent.json: brand: must be {spec.name}'s ({spec.slug})")
    return {"palette": brand["palette"], "font_family": brand["fontFamily"]}


def _json(document: Any) -> tuple[bytes, str]:
    return json.dumps(document, indent=2).encode(), "application/json"


def _text(text: str) -> tuple[bytes, str]:
    return text.encode(), "text/plain; charset=utf-8"


def workspace_files(spec: Spec, workspace_id: str, brand_id: str, created_at: str, logo: bytes) -> Files:
    """Files of the workspace outside its agents' folders, all under the r2 allowlist (uploaded as users upload)."""
    first, brand = EXAMPLES / spec.bundles[0], brand_fields(spec)
    documents = {name: json.loads((first / f"{name}.json").read_text()) for name in ("site", "wrap", "suggestions")}
    return {
        "config/site.json": _json(documents["site"]),
        "wrapper/config.json": _json(documents["wrap"]),
        f"brands/{brand_id}/palette.json": _json({"palette": brand["palette"], "fontFamily": brand["font_family"]}),
        "workflows/suggestions.json": _json(documents["suggestions"]),
        "meta/workspace.json": _json({"id": workspace_id, "name": spec.name, "createdAt": created_at}),
        "public/hello.txt": _text(f"Hello from {spec.name}!\n"),
        "assets/logo.png": (logo, "image/png"),
    }


def bundle_dirs(spec: Spec) -> list[Path]:
    return [EXAMPLES / name for name in spec.bundles]
