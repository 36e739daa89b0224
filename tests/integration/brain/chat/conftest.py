"""POST /v1/agent/{agentId}/chat through its handler (events/BrainChatFunction.json, moto), drained as the runtime does.

The model is the offline one (``CHAT_MODEL=offline``, as the local runner sets it), with
no delay between deltas unless a test needs time to pass. Every test that spends
credits ends by checking the owner's ledger: balance, holds and entries agree.
The helpers are tests/support/chat.py; the fixtures (funded, storing, model) ../conftest.py.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def as_chat_function(chat_environment: None) -> None:
    """Every test here runs with the chat function's environment (../conftest.py)."""
