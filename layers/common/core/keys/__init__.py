"""Workspace API keys: their format, minting, listing, revocation, and the read plane's key check.

- ``check.py``: ``KeyAuthenticator`` — where a workspace key is checked on every read-plane request (offline
  checksum, one GetItem by hash, the key's rate limit), and a signed media URL in its place
- ``admin.py``: ``KeyAdminService`` — mint, list, revoke (management plane)
- ``key_format.py``: the ``sk_`` format, its checksum and hash; ``store.py``: ``ApiKeyStore``
- ``records.py``, ``models.py``, ``ports.py``; ``providers.py``: ``store()``, ``checker()``, ``admin()``
"""
