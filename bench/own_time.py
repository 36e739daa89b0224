"""Cumulative time of a cProfile run with the waits taken out: time inside AWS calls and time blocked on a lock.

cProfile's cumulative time of a request's outer functions is mostly moto (DynamoDB on AWS) and, for calls
issued together, the main thread waiting for the worker threads (which cProfile does not see). Each
function's share of those waits is propagated up the call graph in proportion to the time each caller spent
in it (exact when a callee costs the same from every caller), leaving its own cumulative time. Pass-through
frames (one callee holds ≥ 90% of their own time: the handler, the resolver, the observability wrapper)
are skipped, so the entries left say where the time goes.
"""

from __future__ import annotations

import pstats
from collections import defaultdict
from typing import Any

Func = tuple[str, int, str]  # (file, line, name) as pstats keys functions
WAITS = (("botocore/client.py", "_api_call"), ("~", "<method 'acquire' of '_thread.lock' objects>"))
PASS_THROUGH = 0.9
ROUNDS = 60  # deeper than any request's call stack in our code and its libraries


def own_cumulative(stats: dict[Func, Any]) -> tuple[dict[Func, float], dict[Func, dict[Func, float]]]:
    """Each function's cumulative seconds less its waits, and the callee edges' cumulative seconds."""
    callees: dict[Func, dict[Func, float]] = defaultdict(dict)
    for callee, (*_, callers) in stats.items():
        for caller, edge in callers.items():
            callees[caller][callee] = edge[3]
    # A fixed point rather than a recursive walk: the graph has cycles (a decorator's wrapper at several levels).
    direct = {f: stats[f][3] if any(f[0].endswith(file) and f[2] == name for file, name in WAITS) else 0.0
              for f in stats}  # fmt: skip
    waits = dict(direct)
    for _ in range(ROUNDS):
        waits = {
            f: direct[f] or min(stats[f][3], sum(edge * waits[g] / stats[g][3] for g, edge in callees.get(f, {}).items()
                                                 if g != f and g in stats and stats[g][3] > 0))
            for f in stats
        }  # fmt: skip
    return {func: stats[func][3] - waits[func] for func in stats}, callees


def top_own(profile: pstats.Stats, ours: tuple[str, ...], count: int) -> list[tuple[Func, int, float]]:
    """The ``count`` functions under ``ours`` with the most own cumulative seconds, pass-through frames skipped."""
    stats = profile.stats  # type: ignore[attr-defined]
    own, callees = own_cumulative(stats)
    found = []
    for func, seconds in own.items():
        if not func[0].startswith(ours) or func[2].startswith("<") or seconds <= 0:
            continue
        edges = callees.get(func, {})
        biggest = max((edge * own[c] / stats[c][3] for c, edge in edges.items() if stats[c][3] > 0), default=0.0)
        if biggest >= PASS_THROUGH * seconds:
            continue
        found.append((func, stats[func][1], seconds))
    found.sort(key=lambda entry: -entry[2])
    return found[:count]
