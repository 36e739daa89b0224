"""A few tasks at a time, stopping at the first failure: the tasks not yet started are skipped, those under way
finish, and the first error is raised (a publish stops as soon as something is refused, and is run again).

How many at a time grows with the work: one worker per ``PER_WORKER`` tasks, at most ``WORKERS``. A few requests
gain nothing from running side by side, while each concurrent one may start a container of its own (a cold start,
on Lambda as on the local runner); a bundle of a hundred posts gains a worker per round trip saved.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait

WORKERS = 4
PER_WORKER = 8


def workers_for(count: int) -> int:
    return max(1, min(WORKERS, math.ceil(count / PER_WORKER)))


def run_all(tasks: Sequence[Callable[[], None]], workers: int | None = None) -> None:
    workers = workers or workers_for(len(tasks))
    if workers == 1:
        for task in tasks:
            task()
        return
    stop = threading.Event()

    def guarded(task: Callable[[], None]) -> None:
        if stop.is_set():
            return
        try:
            task()
        except BaseException:
            stop.set()
            raise

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(guarded, task) for task in tasks]
        try:
            wait(futures)
        except BaseException:  # Ctrl-C in the calling thread: start nothing more, let what runs finish
            stop.set()
            raise
    errors = [error for future in futures if (error := future.exception()) is not None]
    if errors:
        raise errors[0]
