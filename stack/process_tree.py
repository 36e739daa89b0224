"""The processes a runner started, read from /proc (Linux): its descendants, whether they live, their memory.

Shared by the tests, the benches and ``make deploy-check`` (LocalStack's memory); the runner itself needs none of it.
"""

from __future__ import annotations

import time
from pathlib import Path


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it exited meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        found += (kids := children.get(todo.pop(), []))
        todo += kids
    return found


def alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running (a zombie has exited: it only waits to be reaped)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running


def wait_until_gone(pids: list[int], timeout: float) -> list[int]:
    """Wait up to ``timeout`` for ``pids`` to exit; those still running then."""
    deadline = time.monotonic() + timeout
    while (left := alive(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS")), 0)
    return total
