"""Brands: a workspace's brands (the writer's create, update, delete; the read plane's ``BrandRef``).

- ``reader.py``: ``BrandReader`` — a workspace's brands for its members; ``store.py``: ``BrandReadStore``
- ``writer.py``: ``BrandService``; ``write_store.py``: ``BrandStore`` (and the default brand's flag)
- ``models.py`` (read plane), ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``reader()``,
  ``writer()``, ``workspace_creation()`` (a workspace is created with the brand ``records.default_brand`` builds)
"""
