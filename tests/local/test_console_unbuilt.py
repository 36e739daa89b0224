"""A runner started before ``make console``: the console's pages say to run it, everything else is served."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from local.console import serve_console


def test_an_unbuilt_console_says_to_run_make_console_and_still_passes_api_calls_on(tmp_path: Path) -> None:
    server = serve_console("127.0.0.1", 0, tmp_path / "dist")  # no index.html there
    server.portal_url, server.upload_origin = "http://127.0.0.1:9", "http://127.0.0.1:5000"  # nothing listens on 9
    try:
        expected = (("/w/ws_1/keys", 503, b"run `make console`"), ("/api/workspaces", 502, b"BAD_GATEWAY"))
        for path, status, says in expected:
            try:
                urllib.request.urlopen(server.url + path, timeout=10)
                raise AssertionError(f"{path} answered 200")
            except urllib.error.HTTPError as refused:
                assert refused.code == status and says in refused.read(), path
                assert refused.headers["Content-Security-Policy"].startswith("default-src 'none'")
    finally:
        server.shutdown()
        server.server_close()
