"""Agent bundles for the client's tests: a small synthetic one written into a folder, a runner without the demo
(its data is not needed, and every test makes its own user and workspace), and a signed-in ``Portal``.

The bundle has posts of every kind that names media (an image, a carousel, a video with its poster, a text post,
a draft), items of three kinds, the three documents, and files in a few folders; its bytes are small made-up
JPEG, PNG, MP4, PDF and Markdown files (the service checks a file's type by its declared content type only).
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from workspace_client import Portal

from stack.process import RunnerProcess
from tests.support import log_scan
from tests.support.runner import GENEROUS_MAIL, LocalService

JPEG, PNG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", b"\x89PNG\r\n\x1a\n"
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
PDF = b"%PDF-1.4\n"


# A publish calls some twenty functions, a few at a time: room for all of them to stay warm between tests (the
# default on a 2-core machine, 16 containers, makes nearly every request of a test a cold start).
WARM_CONTAINERS = {"LOCAL_MAX_CONTAINERS": "64"}


def started_service_without_demo(state_dir: Path) -> Iterator[LocalService]:
    """``python -m local --no-demo`` in ``state_dir`` while the caller's fixture lasts (no users, no workspaces)."""
    runner = RunnerProcess(state_dir, function_env=GENEROUS_MAIL, env=WARM_CONTAINERS)
    runner.command.append("--no-demo")
    try:
        yield LocalService(runner.start(), state_dir)
    finally:
        runner.stop()


def mailed_link(service: LocalService, email: str, before: set[Path]) -> str:
    """The link of the one sign-in mail to ``email`` the runner wrote to its outbox since ``before``."""
    (mail,) = [path for path in set(outbox(service).glob("*.json")) - before if _mail(path)["to"] == email]
    link: str = _mail(mail)["link"]
    log_scan.register_secret(parse_qs(urlsplit(link).query)["token"][0])
    return link


def outbox(service: LocalService) -> Path:
    return service.state_dir / "outbox"


def mails(service: LocalService) -> set[Path]:
    return set(outbox(service).glob("*.json")) if outbox(service).exists() else set()


def _mail(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def signed_in(service: LocalService, email: str) -> Portal:
    portal = Portal(service.portal)
    before = mails(service)
    portal.request_magic_link(email=email)
    portal.sign_in_with_magic_link(mailed_link(service, email, before))
    assert portal.token and portal.session_cookie
    log_scan.register_secret(portal.token, portal.session_cookie)
    return portal


def made_bytes(head: bytes, size: int, seed: int) -> bytes:
    """``size`` bytes starting with a format's magic number, the rest random (so MD5s differ between files)."""
    return head + random.Random(seed).randbytes(size - len(head))  # noqa: S311 - test data, not a secret


FILES = {
    "media/a.jpg": made_bytes(JPEG, 40_000, 1),
    "media/b.jpg": made_bytes(JPEG, 30_000, 2),
    "media/c.png": made_bytes(PNG, 20_000, 3),
    "media/clip.mp4": made_bytes(MP4, 300_000, 4),
    "media/clip-poster.jpg": made_bytes(JPEG, 10_000, 5),
    "docs/menu.pdf": made_bytes(PDF, 25_000, 6),
    "notes/faq.md": "# FAQ\n\nOat milk? Yes — every day.\n".encode(),
}
POSTS: list[dict[str, Any]] = [
    {"createdAt": "2026-01-02T03:04:05.000Z", "kind": "image", "key": "media/a.jpg", "title": "Morning",
     "caption": "Fresh from the oven", "hashtags": ["bakery"], "channels": ["instagram", "site"],
     "category": "news", "width": 1080, "height": 1350},
    {"createdAt": "2026-01-03T10:00:00+01:00", "kind": "carousel", "key": "media/b.jpg", "title": "Three views",
     "channels": ["instagram", "instagram"], "pages": [
         {"key": "media/c.png", "mediaType": "image", "order": 2},
         {"key": "media/b.jpg", "mediaType": "image", "width": 800, "height": 800, "order": 1},
         {"key": "media/a.jpg", "order": 0}]},
    {"createdAt": "2026-01-04T12:30:00.5Z", "kind": "video", "key": "media/clip.mp4", "sub": "Behind the bar",
     "poster": "media/clip-poster.jpg", "playable": "media/clip.mp4", "width": 640, "height": 360},
    {"createdAt": "2026-01-05T08:00:00Z", "kind": "text", "key": "media/c.png", "title": "  Opening hours  ",
     "caption": "Open every day from 7."},
    {"createdAt": "2026-01-06T08:00:00Z", "kind": "image", "key": "media/b.jpg", "title": "Not yet",
     "status": "draft"},
]  # fmt: skip
ITEMS: list[dict[str, Any]] = [
    {"name": "Menu", "kind": "document", "file": "docs/menu.pdf", "folder": "docs"},
    {"name": "Hero", "kind": "image", "file": "media/a.jpg", "folder": "brand", "order": 1, "origin": "generated"},
    {"name": "FAQ", "kind": "text", "file": "notes/faq.md"},
]
DOCUMENTS: dict[str, Any] = {
    "agent.json": {"slug": "test-barista", "name": "Test Barista"},
    "wrap.json": {"layout": "feed", "greeting": "Hello!", "theme": {"accent": "#336699", "logo": None}, "footer": None},
    "site.json": {"pages": [{"slug": "home", "title": "Home"}], "nav": ["home"]},
    "suggestions.json": ["What is new?", "When are you open?"],
    "posts.json": POSTS,
    "items.json": ITEMS,
}


def write_bundle(root: Path, *, files: dict[str, bytes] | None = None, **documents: Any) -> Path:
    """The synthetic bundle at ``root`` (replaced if there): ``documents`` (``posts_json=[…]``, ``wrap_json=None``
    to leave a document out) and ``files`` override the defaults."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    chosen = DOCUMENTS | {name.replace("_json", ".json"): value for name, value in documents.items()}
    for name, value in chosen.items():
        if value is not None:
            (root / name).write_text(json.dumps(value, indent=2, ensure_ascii=False))
    for path, data in (FILES | (files or {})).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root
