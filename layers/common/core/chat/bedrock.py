"""A ``ChatModel`` on Amazon Bedrock's ConverseStream API.

Every failure becomes a ``ModelError`` whose message is safe to show a visitor; the
AWS error code is logged (never the conversation, which is the visitor's).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from core.chat.model import ModelError, ModelRequest, TextDelta, Usage, estimate_tokens, request_chars

logger = logging.getLogger(__name__)

# Error codes that mean "try again shortly"; anything else means the model cannot answer now.
# ConverseStream reports errors before the stream as ClientError codes and inside it as
# event-stream exception types, whose names start with a lower-case letter.
_BUSY = frozenset({"ThrottlingException", "throttlingException"})


class BedrockModel:
    def __init__(self, client: Any, model_id: str) -> None:
        self._client = client
        self._model_id = model_id

    def stream(self, request: ModelRequest) -> Iterator[TextDelta | Usage]:
        """The reply, traced as one X-Ray subsegment from the call to the stream's end (when tracing is on)."""
        from core.platform import observability

        with observability.subsegment("bedrock.converse_stream"):
            yield from self._stream(request)

    def _stream(self, request: ModelRequest) -> Iterator[TextDelta | Usage]:
        from botocore.exceptions import BotoCoreError, ClientError  # deferred: only a chat turn needs them

        try:
            response = self._client.converse_stream(
                modelId=self._model_id,
                system=[{"text": request.system}],
                messages=[{"role": m.role, "content": [{"text": m.text}]} for m in request.messages],
                # The agent's behaviour: the reply stops at its maxReplyTokens, at its temperature.
                inferenceConfig={"maxTokens": request.max_tokens, "temperature": request.temperature},
            )
        except ClientError as error:
            raise self._failure(_code(error), "call") from None
        except BotoCoreError as error:  # no connection, timeout, bad credentials: nothing reached the model
            raise self._failure(type(error).__name__, "call") from None

        usage: Usage | None = None
        output_chars = 0
        events = response["stream"]
        try:
            for event in self._events(events):
                if "contentBlockDelta" in event:
                    # Only text: reasoning or tool-use deltas are not for the visitor.
                    text = event["contentBlockDelta"].get("delta", {}).get("text")
                    if text:
                        output_chars += len(text)
                        yield TextDelta(text)
                elif "metadata" in event and "usage" in event["metadata"]:
                    counts = event["metadata"]["usage"]
                    usage = Usage(int(counts.get("inputTokens", 0)), int(counts.get("outputTokens", 0)))
                # messageStart, contentBlockStart/Stop and messageStop carry nothing to forward; a
                # messageStop with stopReason guardrail_intervened or content_filtered simply ends the answer.
        finally:
            events.close()  # also when the consumer stops early: frees the HTTP connection
        yield usage or Usage(estimate_tokens(request_chars(request)), estimate_tokens(output_chars))

    def _events(self, events: Any) -> Iterator[dict[str, Any]]:
        """The stream's events, with failures while reading it turned into ``ModelError``."""
        from botocore.eventstream import ParserError
        from botocore.exceptions import BotoCoreError, EventStreamError
        from urllib3.exceptions import HTTPError

        try:
            yield from events
        except EventStreamError as error:
            raise self._failure(_code(error), "stream") from None
        except (BotoCoreError, HTTPError, ParserError, OSError) as error:  # the connection broke or was garbled
            raise self._failure(type(error).__name__, "stream") from None

    def _failure(self, code: str, stage: str) -> ModelError:
        logger.warning("bedrock converse_stream failed during %s: %s (model %s)", stage, code, self._model_id)
        return ModelError("MODEL_BUSY" if code in _BUSY else "MODEL_UNAVAILABLE")


def _code(error: Any) -> str:
    """The AWS error code of a botocore ``ClientError`` (``EventStreamError`` included)."""
    return str(error.response.get("Error", {}).get("Code", ""))
