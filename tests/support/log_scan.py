"""A pytest plugin: the run fails if any log line it wrote holds a secret (a raw key, JWT, cookie, token, prompt).

Three sources, every line of each:
- every log record emitted in-process (a handler on the root logger and on each Powertools Logger, at INFO),
- everything a test phase wrote to stdout/stderr, including subprocesses and EMF metric documents (pytest's
  captured sections),
- every local runner log file (``stack.process.RUNNER_LOGS``; the runner's containers write there too, Powertools'
  JSON lines and EMF documents included).

Two kinds of evidence: the shapes of secrets (a well-formed ``sk_ws_`` key, a JWT, a ``session=``
cookie, a ``token=`` parameter) and exact canaries, every secret the tests sent or received
(``register_secret`` / ``register_exchange``, called by the HTTP helpers). Offending lines are
printed redacted. Under xdist each worker scans its own lines and the controller fails the run.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

import pytest

from tests.support.secrets_seen import findings, register_body, register_exchange, register_headers, register_secret

__all__ = ["register_body", "register_exchange", "register_headers", "register_secret"]
_lines: list[tuple[str, str]] = []  # (where, line)


def _collect(where: str, text: str) -> None:
    _lines.extend((where, line) for line in text.splitlines() if line.strip())


class _Collector(logging.Handler):
    """Every record as production would write it: message, ``extra`` fields and the exception text."""

    _standard = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "requestId"}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            extra = {k: v for k, v in vars(record).items() if k not in self._standard}
            text = f"{record.levelname} {record.name} {record.getMessage()} {json.dumps(extra, default=str)}"
            if record.exc_info and record.exc_info[1] is not None:
                text += "\n" + logging.Formatter().formatException(record.exc_info)
            test = os.environ.get("PYTEST_CURRENT_TEST", "").rpartition(" ")[0]  # which test was running, if any
            _collect(f"{test} log {record.name}".strip(), text)
        except Exception:  # a log record must never fail the code that logs it
            self.handleError(record)


_collector = _Collector(level=logging.INFO)


def _attach() -> None:
    """Keep the collector on the root logger at INFO, and on every Powertools Logger: Powertools filters its
    own records out of the root handlers it finds (no duplicates on Lambda), so the collector joins it there."""
    root = logging.getLogger()
    for logger in [root, *(v for v in logging.root.manager.loggerDict.values() if hasattr(v, "powertools_handler"))]:
        if isinstance(logger, logging.Logger) and _collector not in logger.handlers:
            logger.addHandler(_collector)
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)  # Lambda's default level for JSON logs (no ApplicationLogLevel in the template)
    for chatty in ("botocore", "boto3", "urllib3"):  # as in core.lambda_logging: never above WARNING
        logging.getLogger(chatty).setLevel(logging.WARNING)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_FOUND] = []
    _attach()


def pytest_runtest_setup(item: pytest.Item) -> None:
    _attach()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if hasattr(report, "node"):  # the xdist controller's copy of a worker's report: the worker scanned it
        return
    for section, content in report.sections:
        if "Captured log" not in section:  # records: the collector saw each already, as production formats them
            _collect(f"{report.nodeid} ({section})", content)


def _runner_logs() -> list[tuple[str, str]]:
    process = sys.modules.get("stack.process")
    lines: list[tuple[str, str]] = []
    for path in getattr(process, "RUNNER_LOGS", []):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        lines.extend((str(path), line) for line in text.splitlines() if line.strip())
    return lines


_FOUND = pytest.StashKey[list[str]]()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: gather what each worker found."""
    node.config.stash[_FOUND].extend(getattr(node, "workeroutput", {}).get("log_scan_findings", []))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    found = session.config.stash[_FOUND]
    found.extend(findings([*_lines, *_runner_logs()]))
    if hasattr(session.config, "workeroutput"):  # an xdist worker: the controller reports and fails the run
        session.config.workeroutput["log_scan_findings"] = found
        return
    if found:
        print(f"\nlog scan: {len(found)} log line(s) hold a secret (shown redacted):", file=sys.stderr)
        for line in found[:50]:
            print("  " + line, file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
