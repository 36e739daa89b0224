# ruff: noqa: S311 - the point is the non-cryptographic generator
"""core.platform.lambda_runtime.snapstart: environments resumed from one snapshot never share ids, tokens, secrets or
random draws.

A snapshot is simulated with os.fork after init: the child is a byte-for-byte copy of the parent's
memory, as every environment restored from one SnapStart snapshot is. CPython reseeds ``random`` in
a forked child itself (os.register_at_fork); a Firecracker restore runs no such hook, so the child
puts the parent's generator state back first and only then "restores" (runs the after-restore hooks).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import select
import signal
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core.identity import portal_jwt
from core.keys import key_format as api_keys
from core.platform import providers as platform_providers
from core.platform.ids import new_id
from core.platform.lambda_runtime import snapstart

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork"),
    # Under xdist the worker has threads: the child only runs code imported before the fork and leaves by
    # os._exit, and a stuck child fails the test after 30 s (see _in_restored_copies).
    pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning"),
]


def _draws() -> dict[str, Any]:
    """What a request in a restored environment generates: a jitter, an id, an API key, a session JWT, a magic-link
    token (core.identity.sign_in draws it with secrets.token_urlsafe(32))."""
    return {
        "random": random.random(),
        "id": new_id("ws"),
        "key": api_keys.generate(),
        "jwt": portal_jwt.issue(b"k" * 32, "usr_1", "ses_1", now=1_800_000_000),  # same clock: only the jti differs
        "magic": secrets.token_urlsafe(32),
    }


def _in_restored_copies(snapshot_state: Any, restore: Callable[[], None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fork (the snapshot), resume both copies from the same generator state, run ``restore`` in each, draw."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one restored environment
        try:
            os.close(read_fd)
            random.setstate(snapshot_state)  # undo CPython's at-fork reseed: a microVM restore has none
            restore()
            os.write(write_fd, json.dumps(_draws()).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    random.setstate(snapshot_state)  # the parent: another environment restored from the same image
    restore()
    ours = _draws()
    ready, _, _ = select.select([read_fd], [], [], 30)
    if not ready:  # a child stuck on a lock some other thread held at fork time: fail, never hang
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert ready, "the forked copy did not answer within 30 s"
    with os.fdopen(read_fd) as pipe:
        theirs = json.loads(pipe.read())
    return ours, theirs


@pytest.fixture
def snapshot_state() -> Iterator[Any]:
    saved = random.getstate()
    random.seed(1234)  # whatever init left behind, identical in every copy
    yield random.getstate()
    random.setstate(saved)


def test_without_the_hook_two_restored_environments_draw_the_same_random_numbers(snapshot_state: Any) -> None:
    """The hazard the hook exists for (and what this test would see if the hook were gone)."""
    ours, theirs = _in_restored_copies(snapshot_state, restore=lambda: None)
    assert ours["random"] == theirs["random"]


def test_after_restore_ids_keys_tokens_and_random_draws_differ_between_environments(snapshot_state: Any) -> None:
    ours, theirs = _in_restored_copies(snapshot_state, restore=snapstart.run_after_restore)
    for name in ("random", "id", "key", "jwt", "magic"):
        assert ours[name] != theirs[name], name


def test_the_hook_reseeds_random_in_process() -> None:
    saved = random.getstate()
    try:
        random.seed(99)
        state = random.getstate()
        first = [random.random() for _ in range(3)]
        random.setstate(state)
        snapstart.run_after_restore()
        assert [random.random() for _ in range(3)] != first
    finally:
        random.setstate(saved)


def test_cached_secrets_are_forgotten_after_restore(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform_providers.portal_secret, "_value", (0.0, b"portal"))
    monkeypatch.setattr(platform_providers.media_url_secret, "_value", (0.0, b"media"))
    snapstart.run_after_restore()
    assert (platform_providers.portal_secret.cached, platform_providers.media_url_secret.cached) == (False, False)


def test_hooks_are_handed_once_to_the_managed_runtime_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    registered: list[Callable[[], None]] = []
    fake = types.ModuleType("snapshot_restore_py")
    fake.register_after_restore = registered.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", fake)
    monkeypatch.setattr(snapstart, "_registered_with_runtime", False)  # as in a fresh process on Lambda
    monkeypatch.setattr(snapstart, "_hooks", list(snapstart._hooks))  # this test's hooks do not outlive it
    calls: list[str] = []
    snapstart.after_restore(lambda: calls.append("first"))
    snapstart.after_restore(lambda: calls.append("second"))
    assert registered == [snapstart.run_after_restore]  # one dispatcher, however many hooks
    registered[0]()  # what the runtime does after a restore
    assert calls == ["first", "second"]


def test_prime_builds_only_while_init_is_snapshotted(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
    snapstart.prime(lambda: built.append("client"))
    assert built == []
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    snapstart.prime(lambda: built.append("client"))
    assert built == ["client"]
