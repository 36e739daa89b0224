"""``workspace-client conversations export``: JSON Lines from the listing API, one turn a line with its agent,
thread and visitor; resumable from its state file after a kill, with nothing written twice or lost; progress on
stderr. Against a fake of the client's two operations (the API itself: tests/integration/portal/authoring/)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from workspace_client import cli_conversations
from workspace_client._generated.models_portal import StoredTurn, Thread, ThreadPage, ThreadTurns

THREADS = [(f"visitor-{n:016d}", f"thr_{n}") for n in range(5)]


class FakePortal:
    """Pages of two threads, each thread with n + 1 turns; ``fail_on`` a thread key to stand for a kill."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.reads: list[str] = []

    def list_conversations(self, workspace_id: str, agent_id: str, *, limit: int, cursor: str | None,
                           **filters: Any) -> ThreadPage:  # fmt: skip
        start = int(cursor or 0)
        shown = THREADS[start : start + limit]
        more = start + limit < len(THREADS)
        return ThreadPage(threads=[Thread(thread_key=t, client=c, turns=1, started_at="2026-03-01T10:00:00.000Z",
                                          last_at="2026-03-01T10:00:00.000Z") for c, t in shown],
                          next_cursor=str(start + limit) if more else None)  # fmt: skip

    def get_conversation(self, workspace_id: str, agent_id: str, thread_key: str, *, client: str) -> ThreadTurns:
        if thread_key == self.fail_on:
            raise KeyboardInterrupt  # killed mid-export
        self.reads.append(thread_key)
        n = int(thread_key.split("_")[1])
        return ThreadTurns(
            turns=[
                StoredTurn(
                    turn_id=f"turn_{n}_{i}",
                    prompt=f"Q{i}",
                    reply=f"A{i}",
                    credits=1,
                    created_at=f"2026-03-01T10:0{i}:00.000Z",
                )
                for i in range(n + 1)
            ]
        )


def args(tmp_path: Path, **more: Any) -> argparse.Namespace:
    given = {"workspace": "ws_1", "agent": "prj_1", "client": None, "since": None, "until": None, "page_size": 2,
             "output": str(tmp_path / "out.jsonl"), "state": str(tmp_path / "state.json"), "json": True}  # fmt: skip
    return argparse.Namespace(**(given | more))


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_turn_once_with_its_agent_thread_and_visitor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = cli_conversations.export(FakePortal(), args(tmp_path))  # type: ignore[arg-type]
    found = lines(tmp_path / "out.jsonl")
    assert summary == {"threads": 5, "turns": 15, "output": str(tmp_path / "out.jsonl")}
    assert len(found) == 15 and found[0] == {"agentId": "prj_1", "threadKey": "thr_0", "client": THREADS[0][0],
                                             "turnId": "turn_0_0", "prompt": "Q0", "reply": "A0", "credits": 1,
                                             "createdAt": "2026-03-01T10:00:00.000Z"}  # fmt: skip
    assert [line["turnId"] for line in found if line["threadKey"] == "thr_2"] == ["turn_2_0", "turn_2_1", "turn_2_2"]
    assert "5 threads, 15 turns exported, done" in capsys.readouterr().err


def test_a_killed_export_resumes_where_it_stopped(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        cli_conversations.export(FakePortal(fail_on="thr_3"), args(tmp_path))  # type: ignore[arg-type]
    with (tmp_path / "out.jsonl").open("a") as out:
        out.write('{"agentId": "prj_1", "threadKey": "thr_3", "cut sh')  # half a thread's line, as a kill leaves it
    again = FakePortal()
    summary = cli_conversations.export(again, args(tmp_path))  # type: ignore[arg-type]
    assert again.reads == ["thr_3", "thr_4"]  # the threads written before the kill are not read again
    found = lines(tmp_path / "out.jsonl")
    assert [line["turnId"] for line in found] == [f"turn_{n}_{i}" for n in range(5) for i in range(n + 1)]
    assert summary["turns"] == 15


def test_state_needs_a_file_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_conversations._run(lambda a: None, args(tmp_path, output="-"))  # type: ignore[arg-type, return-value]
    assert code == 2 and "--state needs --output" in capsys.readouterr().err
