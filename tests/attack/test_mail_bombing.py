"""Issue 11, hole 3: sign-in mail used to bomb an inbox. Throttled per address and per source IP. Per address the
answer never changes (202 ``{"sent": true}``), so it tells nothing about the account; a source over its own limit is
told to wait (issue 28: 429 ``RATE_LIMITED`` with ``Retry-After``), which tells nothing about any account either.

A runner of its own: the per-IP budget this spends would starve the other attack modules' sign-ins.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.platform.settings import Settings
from tests.support.attack import post_json
from tests.support.runner import LocalService, started_service

pytestmark = pytest.mark.attack


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("attack-mail-state"), sign_in_limits={})  # deployed limits


DOCUMENTED = {"magic_link_per_address": 5, "magic_link_per_ip": 30}  # per rolling 15 minutes


def limit(name: str) -> int:
    """The deployed default (the local runner does not override these); the documented number before it existed."""
    field = Settings.model_fields.get(name)
    return int(field.default) if field is not None else DOCUMENTED[name]


def mails_to(outbox: Path, addresses: set[str]) -> int:
    time.sleep(0.5)  # mail is written before the 202; a short grace for the slowest container anyway
    return sum(json.loads(p.read_text())["to"] in addresses for p in outbox.glob("*.json")) if outbox.exists() else 0


def test_one_inbox_cannot_be_bombed(service: LocalService) -> None:
    victim = "attack.inbox@example.org"
    answers = {post_json(service, "/api/auth/magic-link", {"email": victim}).body for _ in range(12)}
    assert answers == {b'{"sent":true}'}
    sent = mails_to(service.state_dir / "outbox", {victim})
    assert 1 <= sent <= limit("magic_link_per_address"), sent


def test_one_source_cannot_mail_everyone_and_is_told_to_wait(service: LocalService) -> None:
    per_ip = limit("magic_link_per_ip")
    addresses = {f"attack.spray{n}@example.org" for n in range(per_ip + 5)}
    answers = [post_json(service, "/api/auth/magic-link", {"email": a}) for a in sorted(addresses)]
    assert {a.body for a in answers if a.status == 202} == {b'{"sent":true}'}
    refused = [a for a in answers if a.status != 202]
    assert refused and answers[-1] in refused, "the source's limit was never reached"
    for answer in refused:
        assert (answer.status, answer.json()["code"]) == (429, "RATE_LIMITED")
        assert 1 <= int(answer.required_header("Retry-After")) <= 15 * 60 + 15
        assert b"@" not in answer.body  # about the source, never about an address
    assert mails_to(service.state_dir / "outbox", addresses) <= per_ip
