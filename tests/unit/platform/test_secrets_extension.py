"""Secrets through the AWS Parameters and Secrets Lambda Extension when the function carries it, else boto3.

A local HTTP server stands in for the extension (its documented API: ``GET /secretsmanager/get?secretId=`` with the
``X-Aws-Parameters-Secrets-Token`` header, answered with GetSecretValue's JSON); the fallback reads moto's Secrets
Manager. docs/decisions.md, "Secrets through the Lambda extension".
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from core.platform import aws as aws_module
from core.platform import secrets
from core.platform.secrets import CachedSecret, SecretUnavailable
from tests.support.lambdas import stack

SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:local/portal-jwt-AbCdEf"


@dataclass
class StandIn:
    """What the stand-in extension holds and saw."""

    values: dict[str, str]
    status: int = 200
    seen: list[tuple[str, dict[str, list[str]], str | None]] = field(default_factory=list)


@pytest.fixture
def extension(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    state = StandIn(values={SECRET_ARN: "the-signing-key"})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            state.seen.append((url.path, query, self.headers.get("X-Aws-Parameters-Secrets-Token")))
            secret_id = query.get("secretId", [""])[0]
            if state.status != 200 or secret_id not in state.values:
                self.send_response(state.status if state.status != 200 else 400)
                self.end_headers()
                return
            body = json.dumps({"ARN": secret_id, "SecretString": state.values[secret_id]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("localhost", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(secrets.EXTENSION_PORT, str(server.server_address[1]))
    monkeypatch.setenv("AWS_SESSION_TOKEN", "session-token-of-the-role")
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def test_a_function_with_the_extension_reads_its_secret_from_it_and_builds_no_client(extension: StandIn) -> None:
    secret = CachedSecret(lambda: SECRET_ARN)
    assert secret() == b"the-signing-key"
    assert secret() == b"the-signing-key"  # cached: the extension is asked once per max age
    assert len(extension.seen) == 1
    path, query, token = extension.seen[0]
    assert (path, query["secretId"], token) == ("/secretsmanager/get", [SECRET_ARN], "session-token-of-the-role")
    assert aws_module.client.cache_info().currsize == 0  # no Secrets Manager client, no service model loaded


def test_the_extension_is_asked_again_after_the_max_age(extension: StandIn) -> None:
    secret = CachedSecret(lambda: SECRET_ARN, max_age=0)
    secret()
    extension.values[SECRET_ARN] = "the-rotated-key"
    assert secret() == b"the-rotated-key"
    assert len(extension.seen) == 2


@pytest.mark.parametrize("status", [400, 500])
def test_an_extension_that_answers_no_secret_fails_the_read_and_caches_nothing(extension: StandIn, status: int) -> None:
    secret = CachedSecret(lambda: SECRET_ARN)
    extension.status = status
    with pytest.raises(SecretUnavailable) as failed:
        secret()
    assert str(status) in str(failed.value) and "the-signing-key" not in str(failed.value)
    assert not secret.cached
    extension.status = 200
    assert secret() == b"the-signing-key"  # the next request reads it


def test_without_the_extension_the_secret_comes_from_secrets_manager(aws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secrets.EXTENSION_PORT, raising=False)
    arn = aws.secrets.create_secret(Name="local/read-by-boto3", SecretString="from-secrets-manager")["ARN"]
    assert not secrets.through_extension()
    assert CachedSecret(lambda: arn)() == b"from-secrets-manager"
    assert aws_module.client.cache_info().currsize == 1  # the Secrets Manager client, made for the read


def test_the_template_gives_every_function_the_extension_and_the_local_runner_none() -> None:
    functions = stack().functions()
    portal = functions["PortalWorkspaceGetFunction"]
    assert portal.extension_environment["PARAMETERS_SECRETS_EXTENSION_HTTP_PORT"] == "2773"
    # Locally (the runner, the tests) there is no extension to answer: the variables stay out of the environment.
    assert [n for n, f in functions.items() if secrets.EXTENSION_PORT in f.environment] == []
    layers = stack().template["Globals"]["Function"]["Layers"]
    arns = json.dumps(layers)
    assert "/aws/service/aws-parameters-and-secrets-lambda-extension/arm64/latest" in arns
    assert "/aws/service/aws-parameters-and-secrets-lambda-extension/x86/latest" in arns
