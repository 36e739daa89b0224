"""Wall time split between meter probes, AWS calls in flight and the function's own work, across threads."""

from __future__ import annotations

import threading
import time


class Timeline:
    """Splits wall time into "probe" (a meter probe open in any thread), else "call" (an AWS call in flight), else
    the function's own: calls issued together (a chat turn's concurrent reads) count once, not once per thread."""

    def __init__(self) -> None:
        self._lock, self._last = threading.Lock(), time.perf_counter()
        self._open, self.ms = {"probe": 0, "call": 0}, {"probe": 0.0, "call": 0.0}

    def _advance(self) -> None:
        now = time.perf_counter()
        kind = "probe" if self._open["probe"] else "call" if self._open["call"] else None
        if kind:
            self.ms[kind] += (now - self._last) * 1000
        self._last = now

    def enter(self, kind: str) -> None:
        with self._lock:
            self._advance()
            self._open[kind] += 1

    def leave(self, kind: str) -> None:
        with self._lock:
            self._advance()
            self._open[kind] -= 1

    def take(self) -> dict[str, float]:
        with self._lock:
            self._advance()
            taken, self.ms = self.ms, {"probe": 0.0, "call": 0.0}
            return taken
