"""``make ops`` with no runner up says so in one line (issue 28: it was a 40-line traceback)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from ops.__main__ import main


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("kept", [False, True], ids=["never-started", "stopped"])
def test_no_runner_is_one_line_and_exit_1(tmp_path: Path, kept: bool, capsys: pytest.CaptureFixture[str]) -> None:
    if kept:  # a runner that stopped leaves its runner.json, naming a port nobody answers on now
        endpoint = {"awsEndpoint": f"http://127.0.0.1:{free_port()}", "region": "us-east-1", "pid": 1}
        (tmp_path / "runner.json").write_text(json.dumps(endpoint))
    assert main(["--state-dir", str(tmp_path), "set-plan", "--email", "a@example.com", "--plan", "pro"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"ops: no local runner is up (state: {tmp_path}): start it with `make serve`")
