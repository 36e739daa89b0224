"""Fixtures of the shared pieces' tests: the credit ledger's repository on moto's ledger table."""

from __future__ import annotations

from typing import Any

import pytest

from core.credits.store import LedgerStore
from core.platform.settings import get_settings


@pytest.fixture
def ledger(aws: Any) -> LedgerStore:
    return LedgerStore(aws.dynamodb, get_settings().ledger_table)
