"""core.chat.bedrock: a real botocore client fed scripted ConverseStream event streams, offline."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Generator, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import botocore.session
import pytest
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError
from botocore.stub import Stubber
from urllib3.exceptions import ProtocolError

from core.chat.bedrock import BedrockModel
from core.chat.model import AgentContext, Message, ModelError, ModelRequest, TextDelta, Usage
from tests.support.bedrock_stream import (
    ScriptedBody,
    answer,
    answer_from,
    aws_headers,
    delta,
    event,
    event_stream,
    exception,
)

MODEL_ID = "anthropic.claude-3-haiku-20240307-v1:0"
PROMPT = "What is on the autumn menu?"
REQUEST = ModelRequest(
    system="You are Harbour Helper.",
    messages=(Message("user", "Hi"), Message("assistant", "Hello!"), Message("user", PROMPT)),
    context=AgentContext("Harbour Helper", "Harbour Cafe", (), (), None, None),
    max_tokens=300,
)


@cache
def session() -> botocore.session.Session:
    """One session for the module: it caches the service model, so each test's client is cheap."""
    return botocore.session.get_session()


class Bedrock:
    """A bedrock-runtime client whose ConverseStream calls are answered by the script, never over the network."""

    def __init__(self) -> None:
        self.client = session().create_client(
            "bedrock-runtime",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            # One attempt, like AWS_MAX_ATTEMPTS=1 elsewhere: Config's "max_attempts" would count retries only.
            config=Config(retries={"total_max_attempts": 1}),
        )
        self.body = ScriptedBody([])
        self.response: AWSResponse | None = None
        self.requests = answer_from(self.client, self._respond)

    def _respond(self, request: Any) -> AWSResponse:
        return self.response if self.response is not None else event_stream(request, self.body)

    def script(self, chunks: Sequence[bytes | Exception]) -> ScriptedBody:
        self.body = ScriptedBody(chunks)
        return self.body


@pytest.fixture
def bedrock() -> Bedrock:
    return Bedrock()


def run(bedrock: Bedrock) -> list[TextDelta | Usage]:
    return list(BedrockModel(bedrock.client, MODEL_ID).stream(REQUEST))


def test_sends_the_request_and_streams_deltas_in_order_then_the_reported_usage(bedrock: Bedrock) -> None:
    body = bedrock.script(answer("Our autumn ", "menu has ", "pumpkin soup."))
    assert run(bedrock) == [
        TextDelta("Our autumn "),
        TextDelta("menu has "),
        TextDelta("pumpkin soup."),
        Usage(input_tokens=42, output_tokens=7),
    ]
    (request,) = bedrock.requests
    assert unquote(request.url).endswith(f"/model/{MODEL_ID}/converse-stream")
    assert json.loads(request.body) == {
        "system": [{"text": "You are Harbour Helper."}],
        "messages": [
            {"role": "user", "content": [{"text": "Hi"}]},
            {"role": "assistant", "content": [{"text": "Hello!"}]},
            {"role": "user", "content": [{"text": PROMPT}]},
        ],
        "inferenceConfig": {"maxTokens": 300, "temperature": 0.3},
    }
    assert body.closed


def test_empty_and_non_text_deltas_are_skipped(bedrock: Bedrock) -> None:
    bedrock.script(
        [
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "hmm"}}}),
            delta(""),
            event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{}"}}}),
            *answer("Soup."),
        ]
    )
    assert run(bedrock) == [TextDelta("Soup."), Usage(42, 7)]


def test_without_metadata_usage_is_estimated_from_characters(bedrock: Bedrock) -> None:
    bedrock.script(answer("Pumpkin ", "soup.", usage=None))
    events = run(bedrock)
    chars = len(REQUEST.system) + len("Hi") + len("Hello!") + len(PROMPT)
    assert events[-1] == Usage(input_tokens=-(-chars // 4), output_tokens=4)  # 13 characters out
    assert [e for e in events if isinstance(e, Usage)] == [events[-1]]


@pytest.mark.parametrize("reason", ["guardrail_intervened", "content_filtered"])
def test_a_filtered_answer_just_ends(bedrock: Bedrock, reason: str) -> None:
    bedrock.script(answer("Sorry, ", stop=reason))
    assert run(bedrock) == [TextDelta("Sorry, "), Usage(42, 7)]


def test_stopping_early_closes_the_stream(bedrock: Bedrock) -> None:
    body = bedrock.script(answer(*(f"word{n} " for n in range(50))))
    stream = BedrockModel(bedrock.client, MODEL_ID).stream(REQUEST)
    assert next(stream) == TextDelta("word0 ")
    assert isinstance(stream, Generator)  # typed an Iterator; a generator, so it can be closed early
    stream.close()
    assert body.closed
    assert body.read < 10  # the rest of the answer was never read


@pytest.mark.parametrize(
    ("error_code", "status", "code"),
    [
        ("ThrottlingException", 429, "MODEL_BUSY"),
        ("AccessDeniedException", 403, "MODEL_UNAVAILABLE"),
        ("ResourceNotFoundException", 404, "MODEL_UNAVAILABLE"),
        ("ValidationException", 400, "MODEL_UNAVAILABLE"),
        ("ModelNotReadyException", 429, "MODEL_UNAVAILABLE"),
        ("ServiceUnavailableException", 503, "MODEL_UNAVAILABLE"),
        ("ModelTimeoutException", 408, "MODEL_UNAVAILABLE"),
    ],
)
def test_errors_of_the_call_are_mapped(
    bedrock: Bedrock, caplog: pytest.LogCaptureFixture, error_code: str, status: int, code: str
) -> None:
    with Stubber(bedrock.client) as stubber, caplog.at_level(logging.WARNING, "core.chat.bedrock"):
        stubber.add_client_error("converse_stream", error_code, "internal detail", http_status_code=status)
        with pytest.raises(ModelError) as raised:
            run(bedrock)
    assert raised.value.code == code
    assert_visitor_safe(raised.value, error_code)
    assert error_code in caplog.text and PROMPT not in caplog.text


def test_an_http_error_response_is_parsed_and_mapped(bedrock: Bedrock) -> None:
    headers = {"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/", "Content-Type": "json"}
    body = ScriptedBody([b'{"message": "Too many requests"}'])
    bedrock.response = AWSResponse("https://x", 429, aws_headers(headers), body)
    with pytest.raises(ModelError) as raised:
        run(bedrock)
    assert raised.value.code == "MODEL_BUSY"
    assert len(bedrock.requests) == 1


def test_a_connection_failure_is_unavailable(bedrock: Bedrock) -> None:
    def refuse(**_: Any) -> None:
        raise EndpointConnectionError(endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com")

    bedrock.client.meta.events.register_first("before-send.bedrock-runtime.ConverseStream", refuse)
    with pytest.raises(ModelError) as raised:
        run(bedrock)
    assert raised.value.code == "MODEL_UNAVAILABLE"


@pytest.mark.parametrize(
    ("exception_type", "code"),
    [
        ("throttlingException", "MODEL_BUSY"),
        ("modelStreamErrorException", "MODEL_UNAVAILABLE"),
        ("internalServerException", "MODEL_UNAVAILABLE"),
        ("serviceUnavailableException", "MODEL_UNAVAILABLE"),
        ("validationException", "MODEL_UNAVAILABLE"),
    ],
)
def test_errors_in_the_stream_are_mapped_after_the_text_so_far(
    bedrock: Bedrock, caplog: pytest.LogCaptureFixture, exception_type: str, code: str
) -> None:
    body = bedrock.script(
        [event("messageStart", {"role": "assistant"}), delta("Our autumn "), exception(exception_type)]
    )
    received: list[TextDelta | Usage] = []
    with caplog.at_level(logging.WARNING, "core.chat.bedrock"), pytest.raises(ModelError) as raised:
        received.extend(BedrockModel(bedrock.client, MODEL_ID).stream(REQUEST))
    assert received == [TextDelta("Our autumn ")]
    assert raised.value.code == code
    assert_visitor_safe(raised.value, exception_type)
    assert exception_type in caplog.text and PROMPT not in caplog.text
    assert body.closed


@pytest.mark.parametrize(
    "failure",
    [ProtocolError("Connection broken", ConnectionResetError()), delta("garbled")[:-1] + b"\x00"],
    ids=["connection-broken", "bad-checksum"],
)
def test_a_broken_stream_is_unavailable(bedrock: Bedrock, failure: bytes | Exception) -> None:
    body = bedrock.script([delta("Our "), failure])
    received: list[TextDelta | Usage] = []
    with pytest.raises(ModelError) as raised:
        received.extend(BedrockModel(bedrock.client, MODEL_ID).stream(REQUEST))
    assert received == [TextDelta("Our ")]
    assert raised.value.code == "MODEL_UNAVAILABLE"
    assert body.closed


def assert_visitor_safe(error: ModelError, aws_code: str) -> None:
    assert error.message == str(error) and error.message.endswith(".")
    for internal in (aws_code, "Bedrock", "bedrock", MODEL_ID, "internal detail", "boom"):
        assert internal not in error.message


def test_importing_the_module_does_not_import_botocore() -> None:
    layer = Path(__file__).resolve().parents[3] / "layers" / "common"
    code = "import sys, core.chat.bedrock; print('botocore' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=layer, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
