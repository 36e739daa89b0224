"""AWS calls per request for every brain endpoint, beside the data model's minimum.

The real handler runs in-process against moto with the demo workspace loaded (bench/in_process.py); a hook on
the boto3 session its clients come from counts every call of the container's first request and of a warm one.
The minimum is what the data model needs per request (docs/data-model.md, "Calls per request", when that table
exists; else ``MINIMUM`` below, derived from its access patterns). The first request of a key in each minute
also records ``lastUsedAt`` (one UpdateItem), so the warm request is the one compared.

    PYTHONPATH=layers/common:. .venv/bin/python bench/aws_calls.py [--json PATH]
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import ROOT, command, finish, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, invoke, operations, prepare, unprepare  # noqa: E402

KEY = 2  # a workspace key's check: GetItem by keyHash + one rate-limit write (access patterns 1 and 2)
# The floor per endpoint from docs/data-model.md's access patterns (numbers in brackets), used when that file
# has no "Calls per request" table. Why each: the reads the answer is made of, nothing fetched twice.
MINIMUM = {
    "whoami": KEY,  # the key names the workspace: nothing else to read
    "agent": KEY + 2,  # agent + brand (4)
    "feed": KEY + 2,  # agent (owner check) + one Query of the published range (5)
    "items": KEY + 2,  # agent + one Query of active items (6)
    "wrap": KEY + 1,  # agent: the documents are its attributes (7)
    "site": KEY + 1,  # (7)
    "suggestions": KEY + 2,  # agent + its active workflow (8)
    "r2": KEY + 1,  # GetObject, the range and validators passed on (no HeadObject)
    # The visitor's rate write; issued together: agent+workspace (one BatchGetItem), the workspace's brands, active
    # items and context posts (three Queries: the brand's id is only known from the agent); the hold; settlement.
    "chat": KEY + 1 + 4 + 2,
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
    found = {}
    for row in rows[1:] if column is not None else []:
        number = re.match(r"\d+", row[column]) if column < len(row) else None
        name = re.sub(r"[^a-z0-9 ]", " ", row[0].lower()).split()
        if number and name:
            found[name[-1] if name[0] in ("get", "post") else name[0]] = int(number.group())
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


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__).parse_args(argv)
    documented = documented_minimum()
    rows = []
    with demo_stack() as demo:
        for op in operations(demo):
            if any(word in op.label for word in SKIPPED):
                continue
            first, warm = calls_of(op)
            key = op.label.split()[0]
            floor = documented.get(key, MINIMUM.get(key))
            spelled = ", ".join(f"{name} {n}" for name, n in sorted(warm.items()))
            excess = "" if floor is None else f"{sum(warm.values()) / floor:.2f}\u00d7"
            rows.append([op.label, sum(first.values()), sum(warm.values()), floor, excess, spelled])
    source = "docs/data-model.md (Calls per request)" if documented else "MINIMUM in bench/aws_calls.py"
    markdown = table(["endpoint", "first request", "warm", "minimum", "warm / minimum", "warm calls"], rows)
    markdown += (
        f"\n\nMinimum from {source}. Portal endpoints are not measured by this bench: "
        "their calls per request are the access patterns of docs/data-model.md."
    )
    return finish(args, "AWS calls per request (brain endpoints)", command("aws_calls.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
