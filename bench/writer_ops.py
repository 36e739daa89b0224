"""The writer's requests for bench/cost_inputs.py: authoring endpoints (authoring.md) on the demo's workspace.

The demo's owner signs in through the portal's own handlers (magic link → outbox → verify → api-token →
portal JWT: ``tests.support.portal.Portal.sign_in``) and every event is built as the integration tests build
theirs (``tests.support.authoring.Studio.event``: the JWT, the path's ids, a request id of its own). Each
request carries a fresh ``Idempotency-Key``, as the generated clients send one on every write, and is a real
write: a new post or item per create, a new caption per edit, a new path per upload signing; publish and
unpublish each get the opposite state first (``Operation.setup``, unmetered), so every run moves the post.

The post is one of the demo's own (an image on two channels with a category, its media already in the
agent's folder): canonical item, row, 2 + 1 + 2 filter copies, the agent's ``postCount`` and the audit
entry in one transaction, plus the Idempotency-Key's record.
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.in_process import Operation, captured_output
from bench.seeded_example import BUNDLE

CREATE, EDIT = "PortalPostCreateFunction", "PortalPostUpdateFunction"
PUBLISH, UNPUBLISH = "PortalPostPublishFunction", "PortalPostUnpublishFunction"
ITEM, UPLOAD = "PortalItemCreateFunction", "PortalUploadCreateFunction"


def example_post() -> dict[str, Any]:
    """The demo's first published image post on two channels with a category, as a client creates it."""
    posts = json.loads((BUNDLE / "posts.json").read_text())
    found = next(
        p for p in posts
        if p["kind"] == "image" and len(p.get("channels", [])) == 2 and p.get("category")
        and p.get("status", "published") == "published"
    )  # fmt: skip
    return {k: v for k, v in found.items() if k not in ("createdAt", "status")} | {"publish": True}


def signed_in(demo: dict[str, Any]) -> Any:
    """The demo's owner signed in through the portal (its mail to a throwaway outbox): a ``Studio`` on the demo."""
    import boto3

    from core.platform import providers as platform_providers
    from tests.conftest import Aws
    from tests.support.authoring import Studio
    from tests.support.portal import Portal

    session = boto3.Session()  # clients of their own: no meter hooks on them
    aws = Aws(session)
    with tempfile.TemporaryDirectory() as outbox, captured_output():
        os.environ |= {"MAIL_TRANSPORT": "outbox", "OUTBOX_DIR": outbox}
        platform_providers.reset()
        portal = Portal(aws, Path(outbox))
        who = portal.sign_in(demo["owner"])
    for name in ("MAIL_TRANSPORT", "OUTBOX_DIR"):
        os.environ.pop(name)
    platform_providers.reset()
    return Studio(portal, who, demo["id"])


def writer_operations(demo: dict[str, Any], *, first_key: int = 0) -> list[Operation]:
    """One operation per measured write; the posts they edit, publish and unpublish are created here. Idempotency-Keys
    are numbered from ``first_key``: a second set of operations on the same demo gives its own (not replays)."""
    studio, agent = signed_in(demo), demo["agents"][0]["id"]
    fresh = itertools.count(first_key)
    post = example_post()
    with captured_output():
        edited, moved = studio.post(agent, **post)["id"], studio.post(agent, **post)["id"]

    def request(function: str, body: Callable[[int], Any] | None = None, **ids: str) -> Callable[[Any], Any]:
        def event(_: Any) -> dict[str, Any]:
            n = next(fresh)
            return studio.event(function, body=body(n) if body else None, key=f"bench-{n:06d}", **ids)

        return event

    def becomes(function: str, status: str) -> Callable[[], None]:
        """The post put in ``status`` through ``function`` (a real change each time): the measured request's start."""

        def setup() -> None:
            answer = studio.ok(function, agent_id=agent, post_id=moved, key=f"bench-setup-{next(fresh):06d}")
            assert answer["post"]["status"] == status, answer

        return setup

    caption = post["caption"]
    item = {"kind": "document", "r2Key": f"projects/{agent}/docs/brochure.pdf", "folder": "docs"}
    upload = {"contentType": "image/jpeg", "size": 250_000}
    return [
        Operation("post create (published, 2 channels, category)", CREATE,
                  request(CREATE, lambda _: post, agent_id=agent), expect=201),
        Operation("post edit (caption of a published post)", EDIT,
                  request(EDIT, lambda n: {"caption": f"{caption} ({n})"}, agent_id=agent, post_id=edited),
                  expect=200),
        Operation("post unpublish", UNPUBLISH, request(UNPUBLISH, agent_id=agent, post_id=moved), expect=200,
                  setup=becomes(PUBLISH, "published")),
        Operation("post publish", PUBLISH, request(PUBLISH, agent_id=agent, post_id=moved), expect=200,
                  setup=becomes(UNPUBLISH, "draft")),
        Operation("item create (existing object)", ITEM,
                  request(ITEM, lambda n: item | {"name": f"Brochure {n}"}, agent_id=agent), expect=201),
        Operation("upload sign (POST …/uploads)", UPLOAD,
                  request(UPLOAD, lambda n: upload | {"path": f"projects/{agent}/media/upload-{n:06d}.jpg"}),
                  expect=201),
    ]  # fmt: skip
