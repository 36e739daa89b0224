"""core.chat.openai_compat against a local server speaking OpenAI's streaming protocol (tests/support/openai_server.py):
the request it sends, the reply it reads, and each way the server can fail, ending as the ``ModelError`` the chat's
error event shows."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
from collections.abc import Generator, Iterator
from email.utils import formatdate
from pathlib import Path

import pytest

from core.chat.model import AgentContext, Message, ModelError, ModelRequest, TextDelta, Usage
from core.chat.openai_compat import OpenAICompatModel, key_of, model_for, retry_after
from tests.support.openai_server import TEXT, OpenAIServer, Script, serve

KEY = "sk-local-3f9a2c7e5b1d4e8fa6c0b2d4"
PROMPT = "What is on the autumn menu?"
REQUEST = ModelRequest(
    system="You are Harbour Helper.",
    messages=(Message("user", "Hi"), Message("assistant", "Hello!"), Message("user", PROMPT)),
    context=AgentContext("Harbour Helper", "Harbour Cafe", (), (), None, None),
    max_tokens=300,
    temperature=0.7,
)
LEAVE_SECONDS = 30  # a bound for a stuck test, not a measure: the handler sees the close within its next poll
HANG_BUDGET = 0.3  # the adapter's whole reply budget in the never-answering tests: they end by it, never race it


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with serve(key=KEY) as running:
        yield running


def model(server: OpenAIServer, *, key: str | None = KEY, reply_seconds: float = 30) -> OpenAICompatModel:
    return OpenAICompatModel(
        model_id="local-gpt",
        base_url=server.base_url,
        model_name="gpt-local-mini",
        api_key=(lambda: key) if key is not None else None,
        reply_seconds=reply_seconds,
    )


def drain(
    adapter: OpenAICompatModel, request: ModelRequest = REQUEST
) -> tuple[list[str], list[Usage], ModelError | None]:
    texts: list[str] = []
    usages: list[Usage] = []
    try:
        for event in adapter.stream(request):
            if isinstance(event, TextDelta):
                texts.append(event.text)
            else:
                usages.append(event)
    except ModelError as error:
        return texts, usages, error
    return texts, usages, None


# ---------------------------------------------------------------- the request and a whole reply


def test_a_reply_streams_its_text_then_the_servers_usage(server: OpenAIServer) -> None:
    texts, usages, error = drain(model(server))
    assert error is None
    assert texts == list(TEXT)
    assert usages == [Usage(input_tokens=57, output_tokens=len(TEXT))]  # the include_usage chunk's counts, exactly


def test_the_request_is_the_documented_streaming_call(server: OpenAIServer) -> None:
    drain(model(server))
    (seen,) = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["Authorization"] == f"Bearer {KEY}"
    assert seen.headers["Content-Type"] == "application/json"
    assert seen.headers["Accept"] == "text/event-stream"
    assert seen.body == {
        "model": "gpt-local-mini",
        "messages": [
            {"role": "system", "content": "You are Harbour Helper."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": PROMPT},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 300,
        "temperature": 0.7,
    }


def test_max_tokens_bounds_the_reply_and_its_usage(server: OpenAIServer) -> None:
    short = ModelRequest(system=REQUEST.system, messages=REQUEST.messages, context=REQUEST.context, max_tokens=2)
    texts, usages, error = drain(model(server), short)
    assert error is None
    assert texts == list(TEXT[:2]) and usages[0].output_tokens == 2


def test_a_server_without_a_usage_chunk_gets_an_estimate(server: OpenAIServer) -> None:
    server.script = Script(usage=False)
    texts, usages, error = drain(model(server))
    assert error is None and texts == list(TEXT)
    reply = "".join(TEXT)
    prompt_chars = len(REQUEST.system) + sum(len(m.text) for m in REQUEST.messages)
    assert usages == [Usage(-(-prompt_chars // 4), -(-len(reply) // 4))]


def test_comment_lines_between_events_are_skipped(server: OpenAIServer) -> None:
    server.script = Script(comments=True)
    texts, _, error = drain(model(server))
    assert error is None and texts == list(TEXT)


def test_a_server_needing_no_key_is_sent_none() -> None:
    with serve(key=None) as open_server:
        texts, _, error = drain(model(open_server, key=None))
    assert error is None and texts == list(TEXT)
    assert "Authorization" not in open_server.requests[0].headers


def test_a_base_url_with_a_trailing_slash_or_another_prefix() -> None:
    with serve(prefix="/api/openai/v1") as other:
        adapter = OpenAICompatModel(model_id="x", base_url=other.base_url + "/", model_name="m")
        texts, _, error = drain(adapter)
    assert error is None and texts == list(TEXT)
    assert other.requests[0].path == "/api/openai/v1/chat/completions"


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAICompatModel(model_id="x", base_url="ftp://example.com/v1", model_name="m")


# ---------------------------------------------------------------- refusals before the stream


def test_a_refused_key_is_unavailable_and_logged_as_configuration(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="core.chat.openai_compat"):
        texts, usages, error = drain(model(server, key="sk-wrong-key-0123456789"))
    assert (texts, usages) == ([], [])
    assert error is not None and error.code == "MODEL_UNAVAILABLE"
    assert error.message == ModelError.MESSAGES["MODEL_UNAVAILABLE"]
    (record,) = caplog.records
    assert record.levelno == logging.ERROR and "401" in record.getMessage() and "secretId" in record.getMessage()
    assert "invalid_api_key" in record.getMessage()
    assert "sk-wrong-key" not in caplog.text and PROMPT not in caplog.text


def test_a_forbidden_answer_is_unavailable(server: OpenAIServer) -> None:
    server.script = Script(mode="status", status=403)
    _, _, error = drain(model(server))
    assert error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_rate_limit_is_busy_and_says_when_to_try_again(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.script = Script(mode="status", status=429, retry_after="20")
    with caplog.at_level(logging.WARNING, logger="core.chat.openai_compat"):
        texts, _, error = drain(model(server))
    assert texts == [] and error is not None
    assert error.code == "MODEL_BUSY"
    assert error.message == "The assistant is busy right now. Please try again in 20 seconds."
    assert "retry after 20 s" in caplog.text and "rate_limit_exceeded" in caplog.text


def test_a_rate_limit_without_retry_after_is_busy(server: OpenAIServer) -> None:
    server.script = Script(mode="status", status=429)
    _, _, error = drain(model(server))
    assert error is not None and (error.code, error.message) == ("MODEL_BUSY", ModelError.MESSAGES["MODEL_BUSY"])


def test_retry_after_as_seconds_or_an_http_date() -> None:
    now = 1_700_000_000.0
    assert retry_after("20", now) == 20
    assert retry_after(formatdate(now + 90, usegmt=True), now) == 90
    assert retry_after(formatdate(now - 90, usegmt=True), now) == 1  # already past: try again now, not "in -90"
    assert retry_after("999999", now) == 3600
    assert retry_after(None, now) is None and retry_after("soon", now) is None


@pytest.mark.parametrize("status", [500, 503])
def test_a_server_error_is_unavailable(server: OpenAIServer, status: int) -> None:
    server.script = Script(mode="status", status=status)
    texts, _, error = drain(model(server))
    assert texts == [] and error is not None and error.code == "MODEL_UNAVAILABLE"


def test_an_unknown_model_is_unavailable_and_logged_as_an_error(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.script = Script(mode="status", status=404)
    with caplog.at_level(logging.WARNING, logger="core.chat.openai_compat"):
        _, _, error = drain(model(server))
    assert error is not None and error.code == "MODEL_UNAVAILABLE"
    assert caplog.records[0].levelno == logging.ERROR and "model_not_found" in caplog.text


def test_a_server_that_is_not_there_is_unavailable() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    adapter = OpenAICompatModel(model_id="x", base_url=f"http://127.0.0.1:{port}/v1", model_name="m")
    _, _, error = drain(adapter)
    assert error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_server_that_never_answers_is_a_timeout_by_the_deadline(server: OpenAIServer) -> None:
    server.script = Script(mode="hang")
    texts, _, error = drain(model(server, reply_seconds=HANG_BUDGET))
    assert texts == [] and error is not None and error.code == "MODEL_TIMEOUT"
    assert len(server.requests) == 1  # it was asked once, never again


# ---------------------------------------------------------------- failures inside the stream


def test_a_connection_dropped_mid_stream_fails_after_the_text_it_sent(server: OpenAIServer) -> None:
    server.script = Script(mode="drop", after=2)
    texts, usages, error = drain(model(server))
    assert texts == list(TEXT[:2]) and usages == []
    assert error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_malformed_chunk_fails_after_the_text_before_it(server: OpenAIServer) -> None:
    server.script = Script(mode="malformed", after=1)
    texts, usages, error = drain(model(server))
    assert texts == list(TEXT[:1]) and usages == []
    assert error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_malformed_first_chunk_fails_with_no_text(server: OpenAIServer) -> None:
    server.script = Script(mode="malformed", after=0)
    texts, _, error = drain(model(server))
    assert texts == [] and error is not None and error.code == "MODEL_UNAVAILABLE"


def test_an_error_chunk_mid_stream_fails(server: OpenAIServer) -> None:
    server.script = Script(mode="error_chunk", after=3)
    texts, usages, error = drain(model(server))
    assert texts == list(TEXT[:3]) and usages == []
    assert error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_server_silent_mid_stream_is_a_timeout_by_the_deadline(server: OpenAIServer) -> None:
    server.script = Script(mode="stall", after=1)
    texts, _, error = drain(model(server, reply_seconds=HANG_BUDGET))
    assert texts == list(TEXT[:1]) and error is not None and error.code == "MODEL_TIMEOUT"


def test_a_server_trickling_comments_past_the_deadline_is_a_timeout() -> None:
    """Reads that each return in time do not extend the turn: the deadline is the reply's, not a read's."""
    ticks = iter(range(1000))

    def clock() -> float:  # one second per reading of the clock: the budget of 5 s is spent after a few reads
        return float(next(ticks))

    with serve() as comments:
        comments.script = Script(comments=True)
        adapter = OpenAICompatModel(model_id="x", base_url=comments.base_url, model_name="m", reply_seconds=5,
                                    clock=clock)  # fmt: skip
        texts, _, error = drain(adapter)
    assert error is not None and error.code == "MODEL_TIMEOUT"
    assert len(texts) < len(TEXT)


def test_a_stream_that_ends_without_finish_or_done_is_a_failure() -> None:
    """A body that ends cleanly (a proxy closing a finished chunked body) before any finish_reason is cut short."""
    body = b'data: {"choices": [{"index": 0, "delta": {"content": "Oat "}, "finish_reason": null}]}\n\n'
    texts, _, error = raw_reply(body)
    assert texts == ["Oat "] and error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_stream_with_a_finish_reason_but_no_done_is_whole() -> None:
    body = (
        b'data: {"choices": [{"index": 0, "delta": {"content": "Oat "}, "finish_reason": null}]}\r\n\r\n'
        b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
    )
    texts, usages, error = raw_reply(body)
    assert error is None and texts == ["Oat "] and len(usages) == 1


def test_an_event_of_several_data_lines_is_one_chunk() -> None:
    body = (
        b'event: message\nid: 1\ndata: {"choices": [{"index": 0,\ndata: "delta": {"content": "Oat "},'
        b' "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'
    )
    texts, _, error = raw_reply(body)
    assert error is None and texts == ["Oat "]


def test_a_line_past_the_limit_is_a_failure() -> None:
    texts, _, error = raw_reply(b"data: " + b"x" * (1 << 20) + b"\n\n")
    assert texts == [] and error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_json_answer_where_a_stream_was_asked_is_a_failure() -> None:
    texts, _, error = raw_reply(b'{"choices": []}', content_type="application/json")
    assert texts == [] and error is not None and error.code == "MODEL_UNAVAILABLE"


def test_a_visitor_leaving_closes_the_connection(server: OpenAIServer) -> None:
    server.script = Script(mode="stall", after=1)
    stream = model(server).stream(REQUEST)
    assert isinstance(stream, Generator)
    assert next(stream) == TextDelta(TEXT[0])
    stream.close()
    assert server.left.wait(LEAVE_SECONDS)  # the server's handler reads EOF on its socket
    assert server.client_gone == 1


# ---------------------------------------------------------------- the key and the cold path


def test_a_key_stored_as_json_or_as_itself() -> None:
    assert key_of("sk-abc\n") == "sk-abc"
    assert key_of(json.dumps({"apiKey": " sk-abc "})) == "sk-abc"
    assert key_of("{not json") == "{not json"


def test_a_catalogue_model_reads_its_key_from_secrets_manager_once_per_container(aws) -> None:
    from core.platform import aws as platform_aws
    from core.platform import providers as platform_providers
    from core.platform.model_catalogue import ModelSpec

    aws.secrets.create_secret(Name="ws-local/models/local-gpt", SecretString=json.dumps({"apiKey": KEY}))
    reads: list[str] = []

    def count_reads() -> None:  # on the container's client (a new container makes a new one)
        platform_aws.client("secretsmanager").meta.events.register(
            "before-parameter-build.secrets-manager.GetSecretValue",
            lambda params, **_: reads.append(params["SecretId"]),
        )

    count_reads()
    with serve(key=KEY) as keyed:
        spec = ModelSpec(id="local-gpt", name="Local GPT", provider="openai", credits_per_turn=2,
                         base_url=keyed.base_url, model_name="gpt-local-mini",
                         secret_id="ws-local/models/local-gpt")  # fmt: skip
        adapter = model_for(spec)
        assert drain(adapter)[2] is None and drain(adapter)[2] is None  # two turns, one read
        assert reads == ["ws-local/models/local-gpt"]
        platform_providers.reset()  # a new container (or a SnapStart restore) reads it again
        count_reads()
        assert drain(adapter)[2] is None
        assert reads == ["ws-local/models/local-gpt"] * 2
    assert [seen.headers["Authorization"] for seen in keyed.requests] == [f"Bearer {KEY}"] * 3


def test_a_catalogue_model_without_a_secret_sends_no_key() -> None:
    from core.platform.model_catalogue import ModelSpec

    with serve() as open_server:
        spec = ModelSpec(id="ollama", name="Ollama", provider="openai", credits_per_turn=1,
                         base_url=open_server.base_url, model_name="llama3.2")  # fmt: skip
        assert drain(model_for(spec))[2] is None
    assert "Authorization" not in open_server.requests[0].headers
    assert open_server.requests[0].body["model"] == "llama3.2"


def test_the_chat_function_loads_no_openai_client_unless_a_model_needs_it() -> None:
    """The chat function's modules (its handler, the chat service, the providers) never import the adapter."""
    root = Path(__file__).resolve().parents[3]
    code = (
        "import sys; import functions.brain.chat.handler, core.chat.providers, core.chat.service; "
        "print('core.chat.openai_compat' in sys.modules)"
    )
    env = {"PYTHONPATH": f"{root / 'layers/common'}:{root}", "AWS_DEFAULT_REGION": "us-east-1", "PATH": ""}
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False", found.stderr


# ---------------------------------------------------------------- a raw server for bodies the local one never sends


def raw_reply(
    body: bytes, *, content_type: str = "text/event-stream"
) -> tuple[list[str], list[Usage], ModelError | None]:
    """One answer whose body is ``body`` exactly, sent with Content-Length (a body that ends cleanly)."""
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def answer() -> None:
        connection, _ = listener.accept()
        with connection:
            received = b""
            while b"\r\n\r\n" not in received:
                received += connection.recv(65536)
            head, _, rest = received.partition(b"\r\n\r\n")
            length = int(
                next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
            )
            while len(rest) < length:
                rest += connection.recv(65536)
            headers = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
            connection.sendall(headers.encode() + body)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        port = listener.getsockname()[1]
        return drain(OpenAICompatModel(model_id="x", base_url=f"http://127.0.0.1:{port}/v1", model_name="m"))
    finally:
        thread.join(10)
        listener.close()
