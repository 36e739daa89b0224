"""A pytest plugin: the run fails if any log line it wrote holds a secret (a raw key, JWT, cookie, token, prompt).

Three sources, every line of each:
- every log record emitted in-process (a handler on the root logger, at Lambda's default INFO),
- everything a test phase wrote to stdout/stderr, including subprocesses (pytest's captured sections),
- every local runner log file (``local.process.RUNNER_LOGS``; the runner's containers write there too).

Two kinds of evidence: the shapes of secrets (a well-formed ``sk_ws_`` key, a JWT, a ``session=``
cookie, a ``token=`` parameter) and exact canaries, every secret the tests sent or received
(``register_secret`` / ``register_exchange``, called by the HTTP helpers). Offending lines are
printed redacted. Under xdist each worker scans its own lines and the controller fails the run.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from core.auth.api_keys import DISPLAY_PREFIX_LENGTH

SHAPES = {
    "workspace key": re.compile(r"sk_ws_[0-9A-Za-z]{49}(?![0-9A-Za-z])"),  # core.auth.api_keys: prefix + 43 + 6
    "JWT": re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
    "session cookie": re.compile(r"\bsession=[A-Za-z0-9_-]{16,}"),
    "token parameter": re.compile(r"\btoken=[A-Za-z0-9_-]{16,}"),
}
MIN_CANARY = 10  # shorter values (a "hi" prompt) would match innocent lines
TOKEN = re.compile(r"[A-Za-z0-9_.~-]+")
SECRET_FIELDS = {"token", "idToken", "prompt", "secret", "jwt", "accessToken", "refreshToken", "password"}

_token_canaries: set[str] = set()  # matched as whole tokens: keys, JWTs, random tokens
_phrase_canaries: set[str] = set()  # matched as substrings: prompts
_lines: list[tuple[str, str]] = []  # (where, line)


def register_secret(*values: Any) -> None:
    """Values no log line may contain (strings of at least ``MIN_CANARY`` characters; others are ignored)."""
    for value in values:
        if isinstance(value, str) and len(value := value.strip()) >= MIN_CANARY:
            if value.startswith("sk_ws_") and len(value) <= DISPLAY_PREFIX_LENGTH:
                continue  # a key's display prefix is public by design (key listings show it)
            (_token_canaries if TOKEN.fullmatch(value) else _phrase_canaries).add(value)


def _walk(document: Any, depth: int = 0) -> Iterable[tuple[str, Any]]:
    if depth > 64:  # a hostile test body nests thousands deep; no secret of ours lives down there
        return
    if isinstance(document, dict):
        for key, value in document.items():
            yield str(key), value
            yield from _walk(value, depth + 1)
    elif isinstance(document, list):
        for value in document:
            yield from _walk(value, depth + 1)


def register_body(body: bytes | str | None) -> None:
    """The secrets in a JSON body: fields named like secrets, keys, JWTs, links with a token."""
    try:
        document = json.loads(body or "null")
    except (ValueError, UnicodeDecodeError, RecursionError):  # not JSON, or hostile nesting: nothing to learn
        return
    for name, value in _walk(document):
        if not isinstance(value, str):
            continue
        if name in SECRET_FIELDS or value.startswith("sk_ws_"):
            register_secret(value)
        for shape in SHAPES.values():
            register_secret(*(m.group().partition("=")[2] or m.group() for m in shape.finditer(value)))


def register_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> None:
    items = headers.items() if isinstance(headers, Mapping) else headers or []
    for name, value in items:
        if name.lower() == "authorization":
            register_secret(value.partition(" ")[2] or value)
        elif name.lower() in ("cookie", "set-cookie"):
            for part in re.split(r"[;,]\s*", value):
                register_secret(part.partition("=")[2])


def register_exchange(
    request_headers: Any = None, request_body: Any = None, response_headers: Any = None, response_body: Any = None
) -> None:
    """Everything secret a test sent or received in one HTTP exchange (in-process or over the wire)."""
    register_headers(request_headers)
    register_headers(response_headers)
    register_body(request_body)
    register_body(response_body)


def redact(line: str) -> str:
    for shape in SHAPES.values():
        line = shape.sub(lambda m: m.group()[:8] + "…[REDACTED]", line)
    for canary in _phrase_canaries | {t for t in TOKEN.findall(line) if t in _token_canaries}:
        line = line.replace(canary, canary[:4] + "…[REDACTED]")
    return line


def findings(lines: Iterable[tuple[str, str]]) -> list[str]:
    """Each offending line, redacted, with where it was written and what it holds."""
    found, seen = [], set()
    for where, line in lines:
        if line in seen:  # a record is both collected and in pytest's captured log: report it once
            continue
        seen.add(line)
        kinds = [name for name, shape in SHAPES.items() if shape.search(line)]
        if _token_canaries and not _token_canaries.isdisjoint(TOKEN.findall(line)):
            kinds.append("a secret the tests used")
        if any(phrase in line for phrase in _phrase_canaries):
            kinds.append("a prompt or phrase the tests sent")
        if kinds:
            found.append(f"{where}: [{', '.join(kinds)}] {redact(line)[:400]}")
    return found


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
    """Keep the collector on the root logger at INFO (core.lambda_logging.configure replaces root's handlers)."""
    root = logging.getLogger()
    if _collector not in root.handlers:
        root.addHandler(_collector)
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
    process = sys.modules.get("local.process")
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
