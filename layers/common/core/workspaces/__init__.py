"""Workspaces: the workspace, its members, plans and settings, and who may write to it.

- ``service.py``: ``WorkspaceService`` — create, list, get, delete, ``members`` (where a member is listed),
  the account;
  ``create.py`` a workspace's first items (default brand and workflow)
- ``access.py``: ``AuthoringAccess`` — the writer's check of a caller as member or writer of a workspace
- ``writer.py``, ``write_store.py``: ``PATCH /api/workspaces/{id}`` (name, wrap config, default brand and workflow)
- ``store.py``: ``WorkspaceStore``; ``records.py``, ``models.py``, ``writer_models.py``, ``ports.py``
- ``providers.py``: ``service()``, ``access()``, ``writer()``, ``plan_of()``
"""
