"""Usage: a key's or an agent's requests, chat turns, credits and 429s per UTC day (authoring.md, "Usage").

- ``reader.py``: ``UsageReader`` — ``GET …/keys/{keyId}/usage`` and ``GET …/agents/{agentId}/usage``, one entry a
  day, oldest first, zeros included
- ``store.py``: ``UsageStore`` — the keys' rate-limit window items, where the read plane counts requests and 429s
  (written by ``core.platform.rate_limit``), and the workspace's usage items in the ledger table, where each chat
  turn's settlement counts the turn and its credits (written by ``core.credits.store``); the counters' names:
  ``core.platform.usage_counters``
- ``models.py``: the wire models; ``providers.py``: ``reader()``
"""
