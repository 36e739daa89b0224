"""AWS calls per request for every brain endpoint, beside the data model's minimum.

The real handler runs in-process against moto with the demo workspace loaded (bench/in_process.py); a hook on
the boto3 session its clients come from counts every call of the container's first request and of a warm one.
The minimum is what the data model needs beyond the key check (docs/data-model.md, "Calls per request"; else
``MINIMUM`` below, the same figures). The first request of a key in each minute also records ``lastUsedAt``
(one UpdateItem), so the warm request is the one compared; the feed is measured uncached and cached.

    PYTHONPATH=layers/common:. .venv/bin/python bench/aws_calls.py [--json PATH]
"""

from __future__ import annotations

import collections
import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import ROOT, command, finish, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, invoke, operations, prepare, unprepare  # noqa: E402

# Calls beyond the key check (the key's GetItem and rate counter, the same for every /v1 route: whoami's warm
# request measures it), from docs/data-model.md's "Calls per request" table; this copy is the fallback when that
# table is missing and says the same.
MINIMUM = {
    "whoami": 0,  # the key check is the answer
    "agent": 2,  # agent ‖ brands
    "feed": 2,  # the agent (tenant check, 404) + one Query of the published range
    "cached": 0,  # the same feed again within FEED_CACHE_SECONDS in the same container
    "items": 2,
    "wrap": 1,  # the documents are attributes of the agent
    "site": 1,
    "suggestions": 2,  # the agent names its workflow
    "r2": 1,  # one GetObject: S3 does ranges and conditions
    "chat": 9,  # agent+workspace, brands, items, posts, the visitor's counter (2), hold, delivered mark, settle
}
SKIPPED = ("100 MiB",)  # the same calls as the 1 MiB object: only the bytes differ


def documented_minimum(path: Path = ROOT / "docs" / "data-model.md") -> dict[str, int]:
    """The "Calls per request" table of docs/data-model.md as {first word of the endpoint: minimum}, if any."""
    text = path.read_text() if path.exists() else ""
    section = re.search(r"^#+ Calls per request.*?\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    rows = [line.strip().strip("|").split("|") for line in (section.group(1) if section else "").splitlines()]
    rows = [[cell.strip() for cell in row] for row in rows if len(row) > 1 and not set(row[0]) <= set("-: ")]
    if not rows:
        return {}
    headers = [h.lower() for h in rows[0]]
    column = next((i for i, h in enumerate(headers) if "minimum" in h), None)
    if column is None:
        return {}
    found: dict[str, int] = {}
    for row in rows[1:]:
        number = re.match(r"(\d+)(?:\s*\(\+(\d+)\))?", row[column]) if column < len(row) else None
        name = re.sub(r"[^a-z0-9 ]", " ", row[0].lower()).split()
        if number and name:  # "7 (+2)": seven, plus two of a counter named apart
            key = name[-1] if name[0] in ("get", "post") else name[0]
            found.setdefault(key, int(number.group(1)) + int(number.group(2) or 0))
    return found


def calls_of(op: Operation) -> tuple[collections.Counter, collections.Counter]:
    """The calls of the container's first request and of a warm one."""
    counted: collections.Counter = collections.Counter()
    session = prepare(op)
    session.events.register("before-call", lambda model, **_: counted.update([model.name]))
    runs = []
    for _ in range(2):
        counted.clear()
        with captured_output():
            invoke(op, op.event({}))
        runs.append(collections.Counter(counted))
    unprepare(op)
    return runs[0], runs[1]


@contextlib.contextmanager
def feed_cache(seconds: float) -> Iterator[None]:
    """The per-container feed cache's lifetime set to ``seconds`` for the functions built within."""
    from core.posts import feed_cache as module

    saved, module.FEED_CACHE_SECONDS = module.FEED_CACHE_SECONDS, seconds
    try:
        yield
    finally:
        module.FEED_CACHE_SECONDS = saved


def measured(demo: dict) -> list[tuple[str, str, collections.Counter, collections.Counter]]:
    """(label, name in the minimum table, first request's calls, warm request's calls) per endpoint."""
    found = []
    for op in operations(demo):
        if any(word in op.label for word in SKIPPED):
            continue
        name = op.label.split()[0]
        if name == "feed":
            with feed_cache(0):  # every request reads: the feed's own calls
                found.append((op.label, name, *calls_of(op)))
            found.append(("feed again within 5 s (cached)", "cached", *calls_of(op)))
            continue
        found.append((op.label, name, *calls_of(op)))
    return found


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__).parse_args(argv)
    documented = documented_minimum()
    with demo_stack() as demo:
        results = measured(demo)
    key_check = sum(next(warm for _, name, _, warm in results if name == "whoami").values())
    rows = []
    for label, name, first, warm in results:
        beyond = sum(warm.values()) - key_check
        floor = documented.get(name, MINIMUM.get(name))
        verdict = "" if floor is None else "at the minimum" if beyond <= floor else f"+{beyond - floor}"
        spelled = ", ".join(f"{call} {n}" for call, n in sorted(warm.items()))
        rows.append([label, sum(first.values()), sum(warm.values()), beyond, floor, verdict, spelled])
    source = "docs/data-model.md (Calls per request)" if documented else "MINIMUM in bench/aws_calls.py"
    headers = ["endpoint", "first request", "warm", "warm beyond the key check", "minimum", "", "warm calls"]
    markdown = "\n\n".join([
        f"The key check (whoami's warm request: the key's GetItem and its rate counter) is {key_check} calls on "
        "every /v1 route; the first request of a key in a minute adds lastUsedAt (one UpdateItem). Minimum beyond "
        f"the key check from {source}.",
        table(headers, rows),
        "Portal endpoints are not measured by this bench: "
        "tests/integration/shared/calls_per_request/ keeps their counts (docs/data-model.md).",
    ])  # fmt: skip
    return finish(args, "AWS calls per request (brain endpoints)", command("aws_calls.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
