"""Items: an agent's knowledge items (documents, images, links, text).

- ``writer.py``: ``ItemService`` — create, list, update, delete; ``write_store.py``: ``ItemStore``
- ``models.py`` (read plane), ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``writer()``
"""
