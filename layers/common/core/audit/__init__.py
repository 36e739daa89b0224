"""Audit: the entry every write records, in the write's own transaction.

- ``writes.py``: ``Writes.run`` — a write with its ``Idempotency-Key`` claim and its audit entry; ``Author``
- ``reader.py``: ``AuditReader.page`` — the log newest first, a page at a time, for owners and admins
  (``GET /api/workspaces/{id}/audit``); ``models.py``: its wire models
- ``store.py``: ``AuditStore``; ``records.py``, ``ports.py``; ``providers.py``: ``writes()``, ``reader()``
"""
