"""Purge: what is left of a deleted workspace or agent is removed by the SQS worker.

- ``worker.py``: ``PurgeWorker`` — a pass over items, keys and object versions, within the time left
- ``store.py``: ``PurgeStore``, ``ObjectVersionStore``; its jobs (purges, and re-stamps run by the same worker) are
  sent through ``core.platform.jobs`` (``purge()``, ``restamp()``)
- ``ports.py`` (its tombstones are ``core.workspaces.records.PurgeRecord``); ``providers.py``: ``worker()``,
  ``deletion()`` (deleting a workspace: ``core.workspaces.workspace.WorkspaceDeletion`` given the keys to revoke)
"""
