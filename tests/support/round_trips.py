"""Round trips of a request: AWS calls one after another, where the reads a service issues together
(``core.platform.together.run``) count as one, however many they are.

``RoundTrips.attach(monkeypatch)`` wraps ``together.run`` so each batch's span of the recorder's calls is known;
``count()`` then counts each call made outside a batch as one round trip and each batch that made a call as one.
Used with ``tests.support.call_recorder.Recorder`` by the calls-per-request tests (the "RT" of docs/data-model.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support.call_recorder import Recorder


@dataclass
class RoundTrips:
    recorder: Recorder
    spans: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of each batch in recorder.calls

    def attach(self, monkeypatch: pytest.MonkeyPatch) -> RoundTrips:
        from core.platform import together

        original = together.run

        def run(*calls: Callable[[], Any]) -> Any:
            start = len(self.recorder.calls)
            try:
                return original(*calls)
            finally:
                if self.recorder.recording:
                    self.spans.append((start, len(self.recorder.calls)))

        monkeypatch.setattr(together, "run", run)
        return self

    def reset(self) -> None:
        self.spans = []

    def batches(self) -> list[Counter[str]]:
        """The calls of each batch that made any, in order."""
        calls = self.recorder.calls
        found = [Counter(str(calls[i]) for i in range(start, end) if calls[i].together) for start, end in self.spans]
        return [batch for batch in found if batch]

    def count(self) -> int:
        return sum(1 for call in self.recorder.calls if not call.together) + len(self.batches())
