"""Fixtures of the webhooks' API tests (helpers: ``tests.support.webhooks``)."""

from __future__ import annotations

import pytest

from tests.support.authoring import Studio
from tests.support.portal import Portal


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)
