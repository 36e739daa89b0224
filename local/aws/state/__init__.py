"""The runner's kept state in ``.local/state/``: ``store`` (snapshot, journal, blobs), ``capture`` (the WSGI
middleware that journals each committed write before moto's answer leaves) and ``restore`` (the replay at start)."""
