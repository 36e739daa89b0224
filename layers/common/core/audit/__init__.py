"""Audit: the entry every write records, in the write's own transaction.

- ``writes.py``: ``Writes.run`` — a write with its ``Idempotency-Key`` claim and its audit entry; ``Author``
- ``store.py``: ``AuditStore``; ``records.py``, ``ports.py``; ``providers.py``: ``writes()``
"""
