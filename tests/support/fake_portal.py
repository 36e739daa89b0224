"""``workspace-client`` run through ``main`` against a fake portal (``httpx.MockTransport``), as the CLI tests of
tests/client that need no runner do: the client class patched to send to the fake, a signed-in session file, and a
runner of commands that returns (status, stdout, stderr)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from workspace_client import cli
from workspace_client.bundle.session import Session, save
from workspace_client.cli import main

Answer = Callable[[httpx.Request], httpx.Response]
Run = Callable[..., tuple[int, str, str]]


def use_fake_portal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, answer: Answer) -> None:
    """Every portal client the CLI builds answers through ``answer``; a session is kept in tmp_path/session.json."""
    real = cli.Portal  # type: ignore[attr-defined]  # the class cli builds its client from, patched here
    monkeypatch.setattr(cli, "Portal", lambda url, **options: real(url, transport=httpx.MockTransport(answer),
                                                                   **options))  # fmt: skip
    save(tmp_path / "session.json", Session("http://portal.test", "cookie", "jwt", "ava@example.com"))


def command_runner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """``run("workspaces", "update", ...)``: the command's exit status and what it printed."""

    def command(*argv: str) -> tuple[int, str, str]:
        status = main([*argv, "--session-file", str(tmp_path / "session.json")])
        out = capsys.readouterr()
        return status, out.out, out.err

    return command
