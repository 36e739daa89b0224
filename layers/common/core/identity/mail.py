"""Outgoing mail: SES in AWS, one JSON file per message in ``.local/outbox/`` for local runs."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from core.platform.dynamo import error_code
from core.platform.errors import DomainError
from core.platform.ids import new_id

logger = logging.getLogger(__name__)


class MailUnavailable(DomainError):
    """SES did not take the message (an unverified sender, a sandboxed account's unverified recipient, throttling):
    nothing the caller can fix, so the spec's 500 ``INTERNAL_ERROR``, as a storage failure is."""


@dataclass(frozen=True)
class Message:
    to: str
    subject: str
    text: str
    link: str


class Mailer(Protocol):
    def send(self, message: Message) -> None: ...


class SesMailer:
    def __init__(self, client: Any, sender: str):
        self._ses = client
        self._sender = sender

    def send(self, message: Message) -> None:
        try:
            self._ses.send_email(
                Source=self._sender,
                Destination={"ToAddresses": [message.to]},
                Message={
                    "Subject": {"Data": message.subject, "Charset": "UTF-8"},
                    "Body": {"Text": {"Data": message.text, "Charset": "UTF-8"}},
                },
            )
        except Exception as exc:
            if not type(exc).__module__.startswith("botocore"):
                raise
            # Only SES's error code: its message names the refused address (a sandbox's unverified recipient),
            # which is a visitor's, and the link in the body is a sign-in token.
            logger.error("mail not sent", extra={"awsError": error_code(exc) or type(exc).__name__})
            raise MailUnavailable() from exc


class OutboxMailer:
    """Local runs: the message is a file a developer (or a test) opens to follow the link."""

    def __init__(self, directory: Path):
        self._dir = directory

    def send(self, message: Message) -> None:
        self._dir.mkdir(parents=True, exist_ok=True)
        path = self._dir / f"{new_id('mail')}.json"
        path.write_text(json.dumps(asdict(message), indent=2) + "\n")
        logger.info("mail written to outbox", extra={"path": str(path), "subject": message.subject})
