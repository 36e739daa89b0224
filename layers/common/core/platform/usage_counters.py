"""Usage counters a key's rate-limit window item carries beside its buckets (issue 28, item 4; issue 43).

The read plane writes one item per request: the key's sliding window (``rate_limit_store``). Counting usage in
that same conditional UpdateItem costs no round trip, so a window item also holds, per UTC day (days since the
epoch), ``u<day>`` (requests counted) and ``x<day>`` (429s answered), and the same per agent for agent routes
(``u<day>~<agentId>``, ``x<day>~<agentId>``). Names of days older than ``KEEP_DAYS`` are removed by the write that
finds them, and an item that counts usage lives ``TTL_DAYS`` after its last write. The reader is
``core.usage``; docs/decisions.md, "Usage (issue 28, item 4)", has the trade-off. Chat turns and credits are not
counted here but by each turn's settlement, on the workspace's usage items in the ledger table (names below).

A key's window item holds only the open day (issue 43): the first counted write that finds a closed day's counters
on it hands them on, in one transaction that removes them from the window item (conditioned on each being what was
read) and adds them to the workspace's day item (``day_item``: one item a workspace and UTC day in the rate-limits
table, names ``handed``). A counter is always in exactly one of the two places, so the reader sums both; a closed
day nobody requested after stays on the window item until then (docs/decisions.md, "The window item holds only the
open day").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

DAY_SECONDS = 86_400
KEEP_DAYS = 90  # what the API can ask for
TTL_DAYS = 100  # the item outlives its last write by this much
# Agent ids come from the path before the route checked the agent exists: a public browser key could otherwise
# grow its window item with made-up ids. Past this many agents in a day, a request counts for the key only.
MAX_AGENTS_A_DAY = 16
COUNTED, REFUSED = "u", "x"
_NAME = re.compile(r"^([ux])(\d{1,7})(?:~(.+))?$")


def day_of(epoch_seconds: float) -> int:
    return int(epoch_seconds // DAY_SECONDS)


def tag_of(agent_id: str | None) -> str:
    return f"~{agent_id}" if agent_id else ""


def name(kind: str, day: int, tag: str = "") -> str:
    return f"{kind}{day}{tag}"


def parse(attribute: str) -> tuple[str, int, str | None] | None:
    """``(kind, day, agentId or None)`` of a counter's name; None for any other attribute."""
    found = _NAME.match(attribute)
    return (found[1], int(found[2]), found[3]) if found else None


def names(kind: str, day: int, tags: Sequence[str], present: Iterable[str]) -> list[str]:
    """The counters one request adds to: the key's, and its agent's unless the day already has its fill of agents
    (and not this one)."""
    agents = {p[2] for a in present if (p := parse(a)) and p[0] == kind and p[1] == day and p[2]}
    kept = [t for t in tags if not t or t[1:] in agents or len(agents) < MAX_AGENTS_A_DAY]
    return [name(kind, day, t) for t in kept]


def stale(present: Iterable[str], day: int, keep: int = KEEP_DAYS) -> list[str]:
    """Counters of days the API can no longer ask for (removed by the write that sees them); ``keep``: of an item
    kept fewer days (the chat's visitor item, ``SlidingWindowLimiter.take``'s ``keep_days``)."""
    return [a for a in present if (p := parse(a)) and p[1] <= day - keep]


@dataclass(frozen=True)
class HandOn:
    """Where a key's window item hands its closed days: ``workspace_id``'s day items, as ``key_id``'s."""

    workspace_id: str
    key_id: str


def date_of(day: int) -> str:
    """A day (days since the epoch) as YYYY-MM-DD."""
    return datetime.fromtimestamp(day * DAY_SECONDS, UTC).strftime("%Y-%m-%d")


def day_item(workspace_id: str, day: int) -> str:
    """The rate-limits table's key (``pk``) of a workspace's day item: its keys' and agents' closed-day counters."""
    return f"usage#{workspace_id}#{date_of(day)}"


def handed(counter: str, key_id: str) -> str:
    """A window counter's name on the day item: the key's own as ``<kind>#<keyId>``, an agent's as
    ``<kind>~<agentId>`` (every key's requests for the agent add up in one counter). Never a window name."""
    parsed = parse(counter)
    if parsed is None:
        raise ValueError(f"not a usage counter: {counter}")
    kind, _, agent = parsed
    return f"{kind}~{agent}" if agent else f"{kind}#{key_id}"


def key_name(kind: str, key_id: str) -> str:
    """The key's own counter on a day item."""
    return f"{kind}#{key_id}"


def agent_name(kind: str, agent_id: str) -> str:
    """An agent's counter (every key's) on a day item."""
    return f"{kind}~{agent_id}"


def closed(present: Mapping[str, int], day: int) -> dict[int, dict[str, int]]:
    """The counters of days before ``day`` (what a write on ``day`` hands on), by day."""
    found: dict[int, dict[str, int]] = {}
    for counter, count in present.items():
        if (parsed := parse(counter)) and parsed[1] < day:
            found.setdefault(parsed[1], {})[counter] = count
    return found


# Chat turns and their credits are counted by the turn's settlement (``core.credits``), on one ledger item per
# workspace and UTC day: ``turns:key#<keyId>``, ``credits:key#<keyId>`` and the same for ``agent#<agentId>``.
TURNS, CREDITS = "turns", "credits"


def usage_partition(workspace_id: str) -> str:
    """The ledger table's partition of a workspace's chat usage: one item a UTC day, ``sk`` the day (YYYY-MM-DD)."""
    return f"USAGE#{workspace_id}"


def chat_name(kind: str, subject: str, subject_id: str) -> str:
    """``kind`` (``TURNS`` or ``CREDITS``) of ``subject`` (``key`` or ``agent``) ``subject_id``."""
    return f"{kind}:{subject}#{subject_id}"
