"""The state journal after a kill: a last line torn mid-write is skipped, every complete line before it is kept.

A line is flushed before its write is answered, so a kill can tear only the line of a write that
was never answered. ``StateStore.load`` reads the journal up to it; the next ``begin`` writes a
snapshot without it and an empty journal of the next generation.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from local.aws.state.store import StateStore

TARGET = "DynamoDB_20120810.PutItem"


def _line(n: int) -> dict[str, str]:
    return {"dynamodb": TARGET, "body": json.dumps({"TableName": "t", "Item": {"pk": {"S": f"item-{n}"}}})}


def test_a_torn_last_line_is_skipped_and_the_rest_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = StateStore(tmp_path)
    store.begin({"t": [{"pk": {"S": "snapshotted"}}]}, {}, {})
    for n in range(3):
        store.append(_line(n))
    torn = json.dumps(_line(3), separators=(",", ":")).encode()[:-17]  # the kill landed mid-write
    journal = tmp_path / f"journal-{store.generation}.ndjson"
    with journal.open("ab") as out:
        out.write(torn)
    # No close(): a killed runner never closes its journal.

    with caplog.at_level(logging.WARNING, logger="local.state"):
        saved = StateStore(tmp_path).load()
    assert saved.items == {"t": [{"pk": {"S": "snapshotted"}}]}
    assert saved.requests == [(TARGET, _line(n)["body"]) for n in range(3)]
    assert "line 4 is incomplete" in caplog.text

    again = StateStore(tmp_path)
    again.load()
    again.begin({"t": [{"pk": {"S": f"item-{n}"}} for n in range(3)]}, {}, {})  # what a restart then holds
    again.close()
    assert not journal.exists()  # the torn journal is gone with its generation
    reloaded = StateStore(tmp_path).load()
    assert reloaded.requests == [] and len(reloaded.items["t"]) == 3


def test_a_journal_that_is_only_a_torn_line_loads_the_snapshot(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    store.begin({"t": []}, {}, {})
    (tmp_path / f"journal-{store.generation}.ndjson").write_bytes(b'{"dynamodb":"DynamoDB_2012')
    saved = StateStore(tmp_path).load()
    assert saved.requests == [] and saved.empty
