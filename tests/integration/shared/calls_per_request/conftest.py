"""Fixtures of the AWS-calls-per-request tests (read plane, chat, management plane).

AWS calls per request of every read endpoint (and a chat turn, and a key mint), at the data model's minimum.

The real handlers run against moto with a botocore hook on the service's own clients that records
each call's operation and table, and how many items each Query read beside how many it returned.
The numbers are the "Calls per request" table of docs/data-model.md; a change that adds a call,
or a Query that reads what it does not return (a filter after the read), fails here.

The key check of the read plane (the key's GetItem, its rate counter, ``lastUsedAt``) and the rate
counters (``RateLimitsTable``) are counted apart: they are the same for every endpoint and
documented with the rate limits; what is asserted is everything else a request asks of AWS.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import providers as platform_providers
from local.gateway.events import SAMPLE_AGENT_ID
from tests.support.call_recorder import Recorder
from tests.support.core_clients import core_tables, wrap_core_clients
from tests.support.seed import Seeder

DRAFT_EVERY = 3  # a third of the posts are drafts, spread through the newest


@pytest.fixture
def recorder(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    found = Recorder(core_tables())
    wrap_core_clients(found.attach, monkeypatch)
    platform_providers.reset()
    return found


@pytest.fixture
def published(tenant: Any, seed: Seeder) -> Any:
    """The sample agent (with its workflow) and 200 posts, a third of them drafts spread through the newest,
    on two channels and three categories; active and inactive items."""
    seed.posts(
        SAMPLE_AGENT_ID, 200,
        published=lambda n: n % DRAFT_EVERY != 0,
        channels=lambda n: [["instagram"], ["site"], ["instagram", "site"]][n % 3],
        category=lambda n: [None, "news", "offers", "events"][n % 4],
    )  # fmt: skip
    seed.items(SAMPLE_AGENT_ID, [{"folder": "catalogue", "active": n % 4 != 0} for n in range(8)])
    return tenant
