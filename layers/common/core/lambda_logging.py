"""Logging for functions run by ``core.runtime``, shaped like the managed runtime's own.

On the managed Python runtime, awslambdaric formats stdlib logging (as JSON lines with
the request id when the function's ``LoggingConfig`` says ``LogFormat: JSON``, else as
tab-separated text) at the level Lambda passes in ``AWS_LAMBDA_LOG_LEVEL``. ``core.runtime``
replaces awslambdaric, so it installs the same here: CloudWatch sees one format everywhere.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "requestId"}
_request_id = ""


def set_request_id(request_id: str) -> None:
    global _request_id  # noqa: PLW0603 - one invocation at a time per process, as Lambda runs them
    _request_id = request_id


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.requestId = _request_id
        return True


class JsonFormatter(logging.Formatter):
    """``timestamp``, ``level``, ``message``, ``logger``, ``requestId``, then the record's ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        document = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "message": record.getMessage(),
            "logger": record.name,
            "requestId": getattr(record, "requestId", ""),
        }
        document |= {k: v for k, v in vars(record).items() if k not in _STANDARD}
        if record.exc_info and record.exc_info[0] is not None:
            document |= {
                "errorType": record.exc_info[0].__name__,
                "errorMessage": str(record.exc_info[1]),
                "stackTrace": self.formatException(record.exc_info).splitlines(),
            }
        return json.dumps(document, default=str, ensure_ascii=False)


def configure() -> None:
    handler = logging.StreamHandler(sys.stdout)
    handler.addFilter(_RequestId())
    if os.environ.get("AWS_LAMBDA_LOG_FORMAT", "").upper() == "JSON":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("[%(levelname)s]\t%(asctime)s\t%(requestId)s\t%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # Lambda sets the level with JSON logs (default INFO); without it, Python's default (WARNING) stays.
    level = os.environ.get("AWS_LAMBDA_LOG_LEVEL", "WARNING").upper()
    root.setLevel({"TRACE": "DEBUG"}.get(level, level))  # Lambda's levels, as Python names them
    for chatty in ("botocore", "boto3", "urllib3"):  # their INFO lines (credentials found, …) are noise
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
