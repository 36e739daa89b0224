"""The layer's stream-bootstrap, run as Lambda runs it: the loop's own lines are Powertools JSON.

``python -m <the loop's module>`` would import it as ``__main__``, whose logger is outside the ``core``
tree the plane's Logger configures, so an import error of the handler was logged as plain text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

LAYER = Path(__file__).resolve().parents[3] / "layers" / "common"


class _RuntimeApi(BaseHTTPRequestHandler):
    """Accepts the runtime's POST /init/error, as Lambda's Runtime API does (202)."""

    posted: list[str] = []  # noqa: RUF012 - one server per test, read after it stops

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.posted.append(self.path)
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def runtime_api() -> Iterator[str]:
    _RuntimeApi.posted = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RuntimeApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_handler_import_error_is_one_json_line_from_the_loops_logger(tmp_path: Path, runtime_api: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_", "_HANDLER"))}
    env |= {
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
        "AWS_LAMBDA_RUNTIME_API": runtime_api,
        "LAMBDA_TASK_ROOT": str(tmp_path),
        "_HANDLER": "no_such_module.lambda_handler",
        "PYTHONPATH": "",
    }
    result = subprocess.run(
        ["/bin/sh", str(LAYER / "stream-bootstrap"), sys.executable],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = [json.loads(text) for text in result.stdout.splitlines()]  # every line is JSON
    (line,) = [line for line in lines if "Unable to import module" in line["message"]]
    assert (line["level"], line["name"]) == ("ERROR", "core.platform.lambda_runtime.loop")
    assert line["exception_name"] == "ModuleNotFoundError"
    assert _RuntimeApi.posted == ["/2018-06-01/runtime/init/error"]
