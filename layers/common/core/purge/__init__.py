"""Purge: what is left of a deleted workspace or agent is removed by the SQS worker.

- ``worker.py``: ``PurgeWorker`` — a pass over items, keys and object versions, within the time left
- ``store.py``: ``PurgeStore``, ``ObjectVersionStore``; ``queue.py``: ``PurgeQueue`` (SQS)
- ``ports.py`` (its tombstones are ``core.workspaces.records.PurgeRecord``); ``providers.py``: ``queue()``,
  ``enqueue()``, ``worker()``
"""
