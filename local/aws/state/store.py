"""The local runner's kept state: a snapshot, a journal of committed writes since it, object bodies as files.

``<state dir>/state/`` holds

- ``snapshot.json``: generation G; every item of every table, every version of every object (its
  headers and the digest of its body), every message waiting in a queue;
- ``journal-G.ndjson``: one JSON line per committed write since that snapshot, appended and flushed
  by ``local.aws.state.capture`` before moto's answer leaves (so an answered write is on disk);
- ``blobs/<sha256>``: object bodies, stored once by content (never inside a JSON line).

A journal line is one of ``{"dynamodb": target, "body": request}`` (replayed as sent, in the order
DynamoDB applied them), ``{"s3": bucket, "key": key, "versions": [...]}`` and ``{"queue": name,
"bodies": [...]}`` (the state after the write: the last line of a key or queue wins). On start the
runner replays snapshot and journal into a fresh moto, then writes the next snapshot (a new file,
renamed into place) and starts an empty journal of the new generation, so restarts stay fast.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

logger = logging.getLogger("local.state")
Versions = list[dict[str, Any]]  # oldest first: {"blob": digest, "headers": {...}} or {"deleteMarker": True}


@dataclass
class Saved:
    """What a state directory holds, folded: the snapshot, then the journal on top of it."""

    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # table -> items (DynamoDB JSON)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (X-Amz-Target, body), in apply order
    objects: dict[tuple[str, str], Versions] = field(default_factory=dict)  # (bucket, key) -> versions
    queues: dict[str, list[str]] = field(default_factory=dict)  # queue name -> message bodies

    @property
    def empty(self) -> bool:
        has_items = any(self.items.values())
        has_objects = any(self.objects.values())
        return not (has_items or self.requests or has_objects or any(self.queues.values()))

    def fold(self, line: dict[str, Any]) -> None:
        if "dynamodb" in line:
            self.requests.append((line["dynamodb"], line["body"]))
        elif "s3" in line:
            self.objects[(line["s3"], line["key"])] = line["versions"]
        elif "queue" in line:
            self.queues[line["queue"]] = line["bodies"]


class StateStore:
    def __init__(self, directory: Path):
        self.directory = directory
        self.blobs = directory / "blobs"
        self.blobs.mkdir(parents=True, exist_ok=True)
        self.generation = 0
        self._lock = threading.Lock()
        self._journal: BinaryIO | None = None

    @property
    def _snapshot_path(self) -> Path:
        return self.directory / "snapshot.json"

    def _journal_path(self, generation: int) -> Path:
        return self.directory / f"journal-{generation}.ndjson"

    def load(self) -> Saved:
        saved = Saved()
        if self._snapshot_path.exists():
            snapshot = json.loads(self._snapshot_path.read_text())
            self.generation = snapshot["generation"]
            saved.items = snapshot["items"]
            saved.objects = {(o["bucket"], o["key"]): o["versions"] for o in snapshot["objects"]}
            saved.queues = snapshot["queues"]
        journal = self._journal_path(self.generation)
        if journal.exists():
            for number, raw in enumerate(journal.read_bytes().splitlines(), 1):
                try:
                    saved.fold(json.loads(raw))
                except ValueError:  # only a line torn by a kill mid-write: its request was never answered
                    logger.warning("%s: line %d is incomplete and skipped", journal.name, number)
        return saved

    def put_blob(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        path = self.blobs / digest
        if not path.exists():
            partial = path.with_suffix(f".{threading.get_ident()}.part")
            partial.write_bytes(data)
            partial.replace(path)
        return digest

    def blob(self, digest: str) -> bytes:
        return (self.blobs / digest).read_bytes()

    def append(self, line: dict[str, Any]) -> None:
        """One committed write; flushed to the OS before returning (a killed runner loses no answered write)."""
        data = json.dumps(line, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            if self._journal is None:
                raise RuntimeError("the state journal is closed")
            self._journal.write(data)
            self._journal.flush()

    def begin(self, items: dict[str, list], objects: dict[tuple[str, str], Versions], queues: dict[str, list]) -> None:
        """Write the next generation's snapshot (what moto holds now) and start its empty journal."""
        generation = self.generation + 1
        snapshot = {
            "generation": generation,
            "items": items,
            "objects": [{"bucket": b, "key": k, "versions": v} for (b, k), v in objects.items()],
            "queues": queues,
        }
        partial = self._snapshot_path.with_suffix(".json.part")
        with partial.open("w") as out:
            json.dump(snapshot, out, separators=(",", ":"))
            out.flush()
            os.fsync(out.fileno())
        partial.replace(self._snapshot_path)  # the switch: from here on, generation G+1 is the state
        self.generation = generation
        with self._lock:
            self._journal = self._journal_path(generation).open("ab")
        for old in self.directory.glob("journal-*.ndjson"):
            if old != self._journal_path(generation):
                old.unlink()
        kept = {version["blob"] for versions in objects.values() for version in versions if "blob" in version}
        for path in self.blobs.iterdir():
            if path.name not in kept:
                path.unlink()

    def close(self) -> None:
        with self._lock:
            journal, self._journal = self._journal, None
        if journal is not None:
            with contextlib.suppress(OSError):
                journal.flush()
                os.fsync(journal.fileno())
            journal.close()
