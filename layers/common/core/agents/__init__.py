"""Agents (``prj_`` ids, ``projects/`` folders): the read plane's published agent data and the writer's agents.

- ``service.py``: ``ReadPlaneService`` — an agent's metadata, feed, items, wrap, site and suggestions, as the read
  plane serves them; ``store.py``: ``PublishedAgentStore`` (the read model: one query per page)
- ``writer.py``: ``AgentService`` — create, update, delete, wrap and site; ``write_store.py``: ``AgentStore``
- ``documents.py``: the published documents' parsers (wrap, site, suggestions)
- ``models.py`` (read plane), ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``reader()``,
  ``writer()``
"""
