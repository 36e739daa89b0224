"""What one page of each management-plane listing (and the credit history) reads as the data behind it grows.

In-process on moto (bench/in_process.py: the template's resources and the demo), the demo's owner signed in: each
listing of ``tests/support/lists.py`` (the listings' two-size tests build theirs the same way: a record made through
the API, then copied with fresh ids) is grown to each of ``--sizes`` records and its first page read warm, on core's
own clients (``tests.support.insights_seed.ItemsRead``: the DynamoDB items each Query evaluated and each
BatchGetItem returned, and every AWS call). The credit history is read at its newest page, its oldest (the deepest
offset) and its newest refunds (one entry in ten), its entries granted through the ledger and numbered by the
history numberer (the LedgerTable's stream handed to ``LedgerHistoryFunction``, ``tests.support.streams``).

Beyond the measured sizes the rows are modelled: the items read are a line through the two measured points (a page
that reads the same at both stays the same; one that reads every record grows with them). moto takes minutes per
listing at 10^5 records on 2 cores, so ``make bench`` measures 10^3 and 10^4 and models 10^5 and 10^6 (each column
says which).

    PYTHONPATH=layers/common:. .venv/bin/python bench/cost_vs_size.py [--sizes 1000 10000] [--only keys posts] \\
        [--json PATH]
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.in_process import captured_output, demo_stack  # noqa: E402

TITLE = "Cost against size: one page of each listing"
MODELLED = (100_000, 1_000_000)
HISTORY_PAGE = 50


def meter() -> Any:
    """Items read and calls of core's own clients (the tests' recorder, on every client core builds from now on)."""
    import pytest

    from core.platform import providers as platform_providers
    from core.platform.settings import get_settings
    from tests.support.core_clients import wrap_core_clients
    from tests.support.insights_seed import ItemsRead

    settings = get_settings()
    found = ItemsRead({settings.main_table: "main", settings.ledger_table: "ledger",
                       settings.api_keys_table: "keys", settings.rate_limits_table: "rates"})  # fmt: skip
    wrap_core_clients(found.attach, pytest.MonkeyPatch())
    platform_providers.reset()
    return found


def read(
    studio: Any, recorder: Any, function: str, query: dict[str, str] | None, ids: dict[str, str]
) -> tuple[int, int]:
    """One request, warm: (items read, AWS calls)."""
    with captured_output():
        studio.ok(function, 200, query=query, **ids)
        with recorder.record():
            studio.ok(function, 200, query=query, **ids)
    return recorder.items, sum(Counter(str(c) for c in recorder.calls).values())


def listings(studio: Any, recorder: Any, sizes: list[int], only: set[str]) -> list[list[Any]]:
    from tests.support.lists import LISTINGS

    rows = []
    for name, build in LISTINGS.items():
        if only and name not in only:
            continue
        with captured_output():
            listing = build(studio)
        measured = []
        for size in sizes:
            with captured_output():
                listing.grow(size)
            measured.append(read(studio, recorder, listing.function, listing.query, listing.ids))
        rows.append([name, listing.page, *measured])
    return rows


def history(studio: Any, recorder: Any, sizes: list[int], only: set[str]) -> list[list[Any]]:
    from tests.support.ledger_checks import ledger_repository
    from tests.support.streams import drain_events

    cases: dict[str, Callable[[int], dict[str, str]]] = {
        "credit history, newest page": lambda size: {"limit": str(HISTORY_PAGE)},
        "credit history, oldest page": lambda size: {
            "limit": str(HISTORY_PAGE),
            "offset": str(max(0, size - HISTORY_PAGE)),
        },
        "credit history, newest refunds": lambda size: {"limit": str(HISTORY_PAGE), "refType": "refund"},
    }
    if only and "history" not in only:
        return []
    ledger, made = ledger_repository(studio.portal.aws.dynamodb), 0
    measured: dict[str, list[tuple[int, int]]] = {case: [] for case in cases}
    for size in sizes:
        for k in range(made, size):  # a refund one entry in ten
            ledger.grant(studio.who.user_id, 1, "refund" if k % 10 == 0 else "topup", f"ref_{k:07d}", "Top-up")
        made = size
        # the stream handed to the history numberer, as Lambda would: the pages read are the numbered path
        with captured_output():
            assert drain_events("LedgerHistoryFunction").failed == []
        for case, query in cases.items():
            measured[case].append(read(studio, recorder, "PortalCreditsHistoryFunction", query(size), {}))
    return [[case, HISTORY_PAGE, *found] for case, found in measured.items()]


def modelled(points: list[tuple[int, int]], sizes: list[int], at: int) -> int:
    """Items read at ``at`` records: the line through the first and last measured points."""
    (n0, y0), (n1, y1) = (sizes[0], points[0][0]), (sizes[-1], points[-1][0])
    slope = (y1 - y0) / (n1 - n0)
    return round(y1 + slope * (at - n1))


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__)
    args.add_argument("--sizes", type=int, nargs=2, default=[1000, 10_000], metavar=("SMALL", "LARGE"))
    args.add_argument("--only", nargs="*", default=[], help="listings to measure (their names in the table)")
    opts = args.parse_args(argv)
    sizes, only = list(opts.sizes), set(opts.only)
    from bench.writer_ops import signed_in
    from local.aws.emulator import make_dynamodb_reads_fast

    make_dynamodb_reads_fast()
    with tempfile.TemporaryDirectory() as outbox, demo_stack() as demo:
        studio = signed_in(demo)
        os.environ |= {"MAIL_TRANSPORT": "outbox", "OUTBOX_DIR": outbox}  # sign-in's and the invitations' mail
        studio.portal.outbox = Path(outbox)
        recorder = meter()
        measured = listings(studio, recorder, sizes, only) + history(studio, recorder, sizes, only)
    rows = []
    for name, page, *points in measured:
        beyond = [modelled(points, sizes, at) for at in MODELLED if at > sizes[-1]]
        same = "yes" if len(set(points)) == 1 else "NO"
        rows.append([name, page, *(f"{items} ({calls})" for items, calls in points), *beyond, same])
    headers = ["request", "page", *(f"items (calls) at {n:,}, measured" for n in sizes),
               *(f"items at {n:,}, modelled" for n in MODELLED if n > sizes[-1]), "one page at every size"]  # fmt: skip
    markdown = "\n\n".join([
        table(headers, rows),
        "items: DynamoDB items the warm request read (each Query's evaluated items, each BatchGetItem's items; the "
        "session's and the access check's GetItem and BatchGetItem included); calls: every AWS call of the request "
        "(S3's ListObjectsV2 for objects). Records: what the listing lists (members, keys, posts, ...; the history's "
        "ledger entries). A listing without pages reads every record: its items grow with the records.",
    ])  # fmt: skip
    return finish(opts, TITLE, command("cost_vs_size.py", sys.argv[1:] if argv is None else argv), markdown)


if __name__ == "__main__":
    main()
