"""The log scan (tests/support/log_scan.py) is not a no-op: a pytest run that logs a planted secret fails.

Each case runs pytest in a subprocess on a tiny test file with only the plugin enabled.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.keys import key_format as api_keys
from stack.template import ROOT

PROMPT = "Which cakes have no gluten at all?"


def run_pytest(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_planted.py").write_text(textwrap.dedent(body))
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "layers" / "common")]),
        "PLANTED_KEY": api_keys.generate(b"\x07" * 32),  # made here: no key-shaped literal sits in the repository
        "PLANTED_PROMPT": PROMPT,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # a quick start: only the plugin under test (and xdist when asked)
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.support.log_scan", *args]
    return subprocess.run(
        [*command, str(tmp_path / "test_planted.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


CASES = {
    "a key logged by a stdlib logger": """
        import logging, os
        def test_it():
            logging.getLogger("core.services.anything").info("minted %s", os.environ["PLANTED_KEY"])
    """,
    "a JWT in a warning's extra fields": """
        import logging
        def test_it():
            jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJlX2hlcmU"
            logging.getLogger("x").warning("refused", extra={"authorization": "Bearer " + jwt})
    """,
    "a token printed to stdout (as a Powertools logger writes)": """
        def test_it():
            print('{"level":"INFO","message":"GET /verify?token=Qm9ndXNUb2tlblRoYXRJc0xvbmc"}')
    """,
    "a session cookie written by a subprocess to stderr": """
        import subprocess, sys
        def test_it():
            code = "import sys; sys.stderr.write('Cookie: session=abcdefghijklmnopqrstuvwxyz012345\\\\n')"
            subprocess.run([sys.executable, "-c", code], check=True)
    """,
    "a registered prompt (a canary) in an exception's traceback": """
        import logging, os
        from tests.support.log_scan import register_secret
        def test_it():
            register_secret(os.environ["PLANTED_PROMPT"])
            try:
                raise ValueError("model refused: " + os.environ["PLANTED_PROMPT"])
            except ValueError:
                logging.getLogger("core.chat.service").exception("chat turn failed")
    """,
    "a key in a local runner's log file": """
        import os
        from pathlib import Path
        from stack import process
        def test_it(tmp_path):
            log = tmp_path / "runner.log"
            log.write_text("INFO local.gateway BrainApi ok\\nkey " + os.environ["PLANTED_KEY"] + "\\n")
            process.RUNNER_LOGS.append(log)
    """,
}


def planted_file() -> str:
    return "\n".join(
        textwrap.dedent(body).replace("def test_it(", f"def test_{i}(") for i, body in enumerate(CASES.values())
    )


def test_every_planted_secret_fails_the_run_and_is_shown_redacted(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, planted_file())
    output = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, output
    assert f"{len(CASES)} passed" in output and f"log scan: {len(CASES)} log line(s) hold a secret" in output, output
    for i, kind in enumerate(["workspace key", "JWT", "token parameter", "session cookie", "a prompt", "workspace"]):
        assert any(f"test_{i}" in line or "runner.log" in line for line in output.splitlines() if kind in line), kind
    assert output.count("[REDACTED]") >= len(CASES)
    assert api_keys.generate(b"\x07" * 32) not in output and PROMPT not in output


def test_a_run_that_logs_a_secret_under_xdist_fails_too(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, CASES["a key logged by a stdlib logger"], "-p", "xdist", "-n", "2")
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout + result.stderr
    assert "log scan: 1 log line(s)" in result.stderr


def test_a_clean_run_passes(tmp_path: Path) -> None:
    clean = """
        import logging
        def test_it():
            logging.getLogger("local.gateway").info('BrainApi "GET /v1/agent/_whoami" 401')
            print("sk_ws_short is not a key; token=short is not a token")
    """
    result = run_pytest(tmp_path, clean)
    assert result.returncode == pytest.ExitCode.OK, result.stdout + result.stderr
