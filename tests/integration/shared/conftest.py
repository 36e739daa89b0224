"""Fixtures of the shared pieces' tests: the credit ledger's repository on moto's ledger table."""

from __future__ import annotations

from typing import Any

import pytest

from core.repositories.ledger import LedgerRepository
from core.settings import get_settings


@pytest.fixture
def ledger(aws: Any) -> LedgerRepository:
    return LedgerRepository(aws.dynamodb, get_settings().ledger_table)
