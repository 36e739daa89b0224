"""Posts: the feed an agent publishes.

- ``writer.py``: ``PostService`` — create, update, delete, and where a post is published (``set_published``);
  ``pages.py`` a carousel's pages; ``write_store.py``: ``PostStore``
- ``feed.py``: a post as the read plane's feed shows it; ``feed_cache.py``: the feed's recent pages per container
- ``models.py`` (read plane), ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``writer()``
"""
