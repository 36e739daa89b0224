"""A first start's output: the demo's publication logs its thousands of requests to a file, not the terminal.

``stderr_to(path)`` points the process's file descriptor 2 at ``path`` for the block, so every log line goes there:
the runner's own (``logging`` writes to ``sys.stderr``), moto's, and the function containers' (their stderr is
inherited, so containers started in the block keep writing to the file: the runner retires them after it,
``ContainerPool.retire``). Standard output is left alone: the few lines of progress a person reads go there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def stderr_to(path: Path) -> Iterator[None]:
    """File descriptor 2 → ``path`` (truncated) until the block ends, however it ends."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with path.open("wb") as log:
            os.dup2(log.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def say(line: str) -> None:
    """A line of progress, on standard output, at once (it is a file when the runner's output is redirected)."""
    print(line, flush=True)
