"""The small agent the smoke publishes: one post with one photo, one item, and its three documents.

Written as a bundle (docs/bundles.md) and published with the client's own ``publish``, exactly as
``workspace-client publish`` does, so the smoke exercises the publishing path a user takes: presigned uploads
straight to the bucket, then the agent, its documents, its post and its item through the portal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from workspace_client import Portal
from workspace_client.bundle.publish import publish

SLUG = "smoke"
NAME = "Smoke Agent"
WRAP = {"layout": "feed", "greeting": "Hello from the smoke test", "theme": {"accent": "#336699"}}
SITE = {"pages": [{"title": "Home", "order": 0}], "nav": [{"label": "Home"}], "sections": []}
SUGGESTIONS = ["What is new?", "Show me the photo"]
POST = {
    "createdAt": "2026-01-02T03:04:05.000Z",
    "kind": "image",
    "key": "media/photo.jpg",
    "title": "Smoke photo",
    "caption": "A photo the smoke test published",
    "hashtags": ["smoke"],
    "channels": ["site"],
    "category": "tests",
    "width": 64,
    "height": 48,
}
ITEM = {"name": "Smoke notes", "kind": "text", "file": "notes/hello.txt", "folder": "notes"}
NOTES = b"The smoke test's notes: oat milk, espresso, and a photo.\n"
# A JPEG's start and end markers around deterministic bytes: the service checks the declared type, not the pixels;
# 4 KiB, so a Range of its first kilobyte is a real part of it.
PHOTO = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 16 + b"\xff\xd9"


def write_bundle(directory: Path) -> Path:
    """The bundle's files in ``directory``; returns it."""
    files: dict[str, Any] = {
        "agent.json": {"slug": SLUG, "name": NAME},
        "wrap.json": WRAP,
        "site.json": SITE,
        "suggestions.json": SUGGESTIONS,
        "posts.json": [POST],
        "items.json": [ITEM],
    }
    for name, content in files.items():
        (directory / name).write_text(json.dumps(content, indent=2) + "\n")
    (directory / "media").mkdir(exist_ok=True)
    (directory / "media" / "photo.jpg").write_bytes(PHOTO)
    (directory / "notes").mkdir(exist_ok=True)
    (directory / "notes" / "hello.txt").write_bytes(NOTES)
    return directory


def publish_agent(
    portal_url: str, token: str, workspace_id: str, directory: Path, transport: httpx.BaseTransport
) -> str:
    """Publish the bundle in ``directory`` into the workspace with the portal JWT ``token``; the agent's id.

    The workspace is the run's new one, so the plan creates the agent, and its id is looked up by slug afterwards.
    """
    with Portal(portal_url, token=token, transport=transport) as portal:
        publish(portal, workspace_id, write_bundle(directory), progress=False)
        (agent,) = [agent for agent in portal.list_agents(workspace_id).agents if agent.slug == SLUG]
    return agent.id
