"""The Python client against the real local runner over HTTP: sign-in, workspaces and keys, every brain operation,
chat streaming (sync and async), and downloads that are really interrupted and resumed.

The runner is this module's own (chat spends the demo owner's credits), with a 1 MiB response cap on
``/v1/r2`` (``R2_MAX_RESPONSE_BYTES``) so the demo's 2.5 MB videos exercise what a deployed stack does
with large objects: a whole GET is a 307 to S3 (moto here), and a range is answered at most 1 MiB at a time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from workspace_client import AsyncBrain, AuthError, Brain, ChatEvent, NotFoundError, Portal, ValidationError

from tests.support import log_scan
from tests.support.runner import GENEROUS_MAIL, LocalService, started_service

pytestmark = pytest.mark.e2e

R2_CAP = 1024 * 1024
PROMPT = "Which events are coming up, and what did you launch recently?"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    settings = GENEROUS_MAIL | {"R2_MAX_RESPONSE_BYTES": str(R2_CAP)}
    yield from started_service(tmp_path_factory.mktemp("client-state"), sign_in_limits=settings)


@pytest.fixture(scope="module")
def shop(service: LocalService) -> dict[str, Any]:
    return service.demo["workspaces"][0]


@pytest.fixture(scope="module")
def agent_id(shop: dict[str, Any]) -> str:
    return shop["agents"][0]["id"]


@pytest.fixture
def brain(service: LocalService, shop: dict[str, Any]) -> Iterator[Brain]:
    log_scan.register_secret(shop["key"])
    with Brain(service.brain, key=shop["key"]) as client:
        yield client


def mailed_link(service: LocalService, email: str, before: set[Path]) -> str:
    """The link of the sign-in mail the local runner wrote to its outbox (one JSON file per message)."""
    (mail,) = set((service.state_dir / "outbox").glob("*.json")) - before
    message = json.loads(mail.read_text())
    assert message["to"] == email
    log_scan.register_secret(message["link"].partition("token=")[2])
    return message["link"]


def signed_in(service: LocalService, email: str) -> Portal:
    portal = Portal(service.portal)
    outbox = service.state_dir / "outbox"
    before = set(outbox.glob("*.json")) if outbox.exists() else set()
    portal.request_magic_link(email=email)
    account = portal.sign_in_with_magic_link(mailed_link(service, email, before))
    assert account.email == email and portal.token and portal.session_cookie
    log_scan.register_secret(portal.token, portal.session_cookie)
    return portal


def test_sign_in_workspace_and_key_lifecycle(service: LocalService, shop: dict[str, Any]) -> None:
    portal = signed_in(service, shop["ownerEmail"])
    assert portal.get_account().workspace_id == shop["id"]
    assert shop["id"] in [summary.id for summary in portal.list_workspaces()]
    assert portal.get_workspace(shop["id"]).workspace.name == shop["name"]
    members = portal.every_member(shop["id"])
    assert {member.email: member.role for member in members}[shop["ownerEmail"]] == "owner"
    # page after page of one (the owner and the demo member: a Next-Cursor header followed over HTTP), the same
    # members in the same order
    assert len(members) >= 2
    assert [m.user_id for m in portal.every_member(shop["id"], page=1)] == [m.user_id for m in members]
    brands = portal.every_brand(shop["id"])
    assert brands[0].is_default and [b.id for b in portal.every_brand(shop["id"], page=1)] == [b.id for b in brands]
    assert [b.id for b in portal.list_brands(shop["id"])] == [b.id for b in brands]  # the first page: all of them
    balance = portal.get_balance()
    assert balance.unit == "credits" and balance.balance.total == balance.balance.available + balance.balance.held
    history = portal.get_history(limit=5, ref_type="topup")
    assert history.limit == 5 and all(entry.ref_type == "topup" for entry in history.entries)
    with pytest.raises(ValidationError):
        portal.get_history(limit=0)

    created = portal.create_workspace(name="Client test shop").workspace
    minted = portal.mint_key(created.id, name="client test", rate_limit=120).key
    log_scan.register_secret(minted.key)
    assert minted.key.startswith("sk_ws_") and minted.rate_limit == 120
    assert [key.id for key in portal.list_keys(created.id).keys] == [minted.id]
    second = portal.mint_key(created.id, name="client test 2", rate_limit=60).key
    log_scan.register_secret(second.key)
    assert [key.id for key in portal.every_key(created.id, page=1)] == [second.id, minted.id]  # a key a page
    portal.revoke_key(created.id, second.id)
    with Brain(service.brain, key=minted.key) as brain:
        assert brain.whoami().workspace_id == created.id
        portal.revoke_key(created.id, minted.id)
        with pytest.raises(AuthError) as refused:
            brain.whoami()
        assert (refused.value.status, refused.value.code) == (401, "UNAUTHORIZED")

    before = portal.token
    portal.refresh_portal_token()
    assert portal.token != before
    assert portal.delete_workspace(created.id).deleted is True
    with pytest.raises(NotFoundError):
        portal.get_workspace(created.id)
    portal.sign_out()
    with pytest.raises(AuthError):
        Portal(service.portal, token=before).get_account()


def test_every_brain_operation(service: LocalService, brain: Brain, shop: dict[str, Any], agent_id: str) -> None:
    assert brain.whoami().workspace_id == shop["id"]
    agent = brain.get_agent(agent_id)
    assert agent.id == agent_id and agent.brand.slug
    feed = brain.get_feed(agent_id)
    assert 0 < len(feed) <= 120 and all(post.kind for post in feed)
    assert all("instagram" in post.channels for post in brain.get_feed(agent_id, channel="instagram"))
    assert all(item.r2_key for item in brain.get_items(agent_id))
    assert brain.get_wrap(agent_id).layout
    assert isinstance(brain.get_site(agent_id).pages, list)
    assert isinstance(brain.get_suggestions(agent_id).suggestions, list)
    with pytest.raises(NotFoundError):
        brain.get_agent("prj_does_not_exist")

    image = next(post for post in feed if post.kind == "image")
    path = f"projects/{agent_id}/{image.key}"
    info = brain.head(path)
    assert info.size > 1024 and info.etag and info.content_type is not None and info.content_type.startswith("image/")
    assert brain.get_bytes(path, byte_range="bytes=0-1023") == brain.get_bytes(path)[:1024]

    urls = brain.media_urls(paths=[path]).urls
    assert len(urls) == 1
    signed = httpx.get(httpx.URL(service.brain).join(urls[0].url), headers={"Range": "bytes=0-9"})
    assert signed.status_code == 206 and signed.content == brain.get_bytes(path)[:10]  # no key sent


def chat_timeline(events: list[tuple[float, ChatEvent]]) -> None:
    """More than one event arrived, spread in time, before the final one, which carries the turn and its charge."""
    *before, (_final_at, final) = events
    deltas = [(at, event) for at, event in before if event.type == "delta"]
    assert len(deltas) > 1 and deltas[-1][0] - deltas[0][0] > 0.05, "the reply arrived at once: buffered"
    assert final.final and final.turn_id and final.turn_id.startswith("turn_") and final.credits == 1
    assert all(event.turn_id == final.turn_id for _, event in before[1:])
    assert "".join(event.text for _, event in deltas).strip()


def test_chat_streams_events_as_they_arrive(brain: Brain, agent_id: str) -> None:
    log_scan.register_secret(PROMPT)
    chat_timeline([(time.monotonic(), event) for event in brain.chat(agent_id, PROMPT)])


def test_async_chat_streams_events_as_they_arrive(service: LocalService, shop: dict[str, Any], agent_id: str) -> None:
    async def run() -> list[tuple[float, ChatEvent]]:
        async with AsyncBrain(service.brain, key=shop["key"]) as brain:
            return [(time.monotonic(), event) async for event in brain.chat(agent_id, PROMPT)]

    chat_timeline(asyncio.run(run()))


class StopAfterFirstChunk(Exception):
    pass


def video_path(brain: Brain, agent_id: str) -> str:
    post = next(post for post in brain.get_feed(agent_id) if post.kind == "video" and post.playable)
    return f"projects/{agent_id}/{post.playable}"


def test_an_interrupted_download_resumes_and_is_checked(tmp_path: Path, brain: Brain, agent_id: str) -> None:
    path = video_path(brain, agent_id)
    info = brain.head(path)
    assert info.size > R2_CAP  # so the whole GET is a 307 to S3, and ranges come back capped

    def stop(done: int, total: int | None) -> None:
        raise StopAfterFirstChunk

    target = tmp_path / "video.mp4"
    with pytest.raises(StopAfterFirstChunk):
        brain.download(path, target, progress=stop)
    kept = (tmp_path / "video.mp4.part").stat().st_size
    assert 0 < kept < info.size and not target.exists()

    reported: list[int] = []
    brain.download(path, target, progress=lambda done, total: reported.append(done))
    assert reported[0] > kept and reported[0] - kept <= R2_CAP  # went on from the part, not from zero
    data = target.read_bytes()
    assert len(data) == info.size and f'"{hashlib.md5(data, usedforsecurity=False).hexdigest()}"' == info.etag
    assert not (tmp_path / "video.mp4.part").exists() and not (tmp_path / "video.mp4.part.etag").exists()


def test_async_download(
    tmp_path: Path, service: LocalService, shop: dict[str, Any], brain: Brain, agent_id: str
) -> None:
    path = video_path(brain, agent_id)

    async def run() -> Path:
        async with AsyncBrain(service.brain, key=shop["key"]) as client:
            return await client.download(path, tmp_path / "v.mp4", progress=False)

    assert asyncio.run(run()).stat().st_size == brain.head(path).size
