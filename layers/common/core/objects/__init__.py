"""Objects: the workspace's files in the content bucket (``/v1/r2`` on the read plane).

- ``service.py``: ``MediaService`` — ``GET /v1/r2/{path+}`` streamed, with Range and conditional requests
  (``ranges.py``); ``store.py``: ``ObjectReadStore``
- ``signed_urls.py``, ``signing.py``: signed media URLs (``POST /v1/media-urls``) and their check
- ``uploads.py``: ``UploadService.sign`` — where an upload is signed (a presigned POST, its reservation against
  the plan's storage: ``upload_store.py``)
- ``reader.py``: ``ObjectReader`` — the members' listing and download; ``writer.py``: ``ObjectService`` — the
  deletion; ``write_store.py``: ``ObjectStore``, the portal's S3 store (its reads and writes)
- ``paths.py`` the rules of an object key, ``media_types.py`` the upload types (and which ``/v1/r2`` shows inline),
  ``fields.py`` their body fields
- ``models.py``, ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``media()``,
  ``signed_urls()``, ``uploads()``, ``reader()``, ``writer()``
"""
