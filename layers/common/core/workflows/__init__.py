"""Workflows: a workspace's workflows (the writer's create, list, update, delete).

- ``writer.py``: ``WorkflowService``; ``write_store.py``: ``WorkflowStore``
- ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``writer()``
"""
