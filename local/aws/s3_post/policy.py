"""In front of moto: a browser-based upload (S3's POST Object) is checked as S3 checks it before moto may store it.

moto 5.2.5's server stores a POST Object whatever its policy says: a file 500 times the signed size, another
content type, a forged signature, all 204. A presigned POST (boto3's ``generate_presigned_post``) is the only
thing limiting what a client uploads, so the local runner checks it as S3 does: the SigV4 signature over the
policy with the secret of the access key it names (``local.aws.s3_post.signature``), then the expiration, every
condition, that every field is named by a condition, and the file's size against ``content-length-range``
(``local.aws.s3_post.conditions``). A refusal is S3's XML error and moto never sees the request (nor does the state
journal behind this middleware); a form that passes is handed to moto as received (``local.aws.s3_post.form``).

A POST Object is a POST of ``multipart/form-data`` to a bucket, path style (``/<bucket>`` or ``/<bucket>/``),
as boto3 addresses moto's endpoint (``posted_bucket``). Every other request passes through unread.
"""

from __future__ import annotations

import base64
import logging
import secrets
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any
from xml.sax.saxutils import escape

from werkzeug.http import parse_options_header
from werkzeug.wsgi import ClosingIterator

from local.aws.s3_post.conditions import check_conditions, read_policy
from local.aws.s3_post.form import PostForm, Refusal, read_form
from local.aws.s3_post.signature import authenticate, missing_field

logger = logging.getLogger("local.s3")
# The only credentials the runner's functions have (local.runner.AWS_ENV): what a presigned POST is signed with.
LOCAL_CREDENTIALS = {"local": "local"}
REGION = "us-east-1"


class PostPolicyCheck:
    """``PostPolicyCheck(app)`` is moto's WSGI ``app`` refusing, as S3 does, the uploads S3 refuses.

    ``credentials``: the secret of each known access key; ``region``: the buckets' region.
    """

    def __init__(self, app: Callable, credentials: Mapping[str, str] | None = None, region: str = REGION) -> None:
        self.app = app
        self.credentials = dict(LOCAL_CREDENTIALS if credentials is None else credentials)
        self.region = region

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        bucket = posted_bucket(environ)
        if bucket is None:
            return self.app(environ, start_response)
        form: PostForm | None = None
        try:
            form = read_form(environ)
            self._check(form, bucket)
        except Refusal as refusal:
            if form is not None:
                form.body.close()
            logger.info("POST upload to %s refused: %s %s", bucket, refusal.code, refusal.message)
            return _answer(refusal, start_response)
        # moto reads the body it would have read (ending at the file part: S3 ignores any field after it).
        environ["wsgi.input"] = form.body
        environ["CONTENT_LENGTH"] = str(form.length)
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ.pop("wsgi.input_terminated", None)
        return ClosingIterator(self.app(environ, start_response), form.body.close)

    def _check(self, form: PostForm, bucket: str) -> None:
        values = form.values
        if "key" not in values:
            raise missing_field("key")
        authenticate(values, self.credentials, self.region)
        if form.file_size is None:
            message = "POST requires exactly one file upload per request."
            raise Refusal(400, "InvalidArgument", message, ArgumentName="file", ArgumentValue=0)
        expiration, conditions = read_policy(values["policy"])
        if datetime.now(UTC) >= expiration:
            raise Refusal(403, "AccessDenied", "Invalid according to Policy: Policy expired.")
        check_conditions(conditions, values, form.names, bucket=bucket, size=form.file_size)


def posted_bucket(environ: Mapping[str, Any]) -> str | None:
    """The bucket a POST Object request posts to; None for any other request.

    A form, or any POST to a bucket without a subresource (S3 takes it for a POST Object and refuses any other
    enclosure type; moto would store a urlencoded form's last field name as the object). A POST with a
    subresource (``?delete``: DeleteObjects) is another operation.
    """
    if environ.get("REQUEST_METHOD") != "POST" or environ.get("HTTP_X_AMZ_TARGET"):
        return None
    scope = environ.get("HTTP_AUTHORIZATION", "")  # a browser's form has none; another service's request names it
    if scope and "/s3/aws4_request" not in scope:
        return None
    path = environ.get("PATH_INFO", "")
    bucket = path[1:].removesuffix("/")
    if not path.startswith("/") or not bucket or "/" in bucket:
        return None
    multipart = parse_options_header(environ.get("CONTENT_TYPE", ""))[0].lower() == "multipart/form-data"
    return bucket if multipart or not environ.get("QUERY_STRING") else None


def _answer(refusal: Refusal, start_response: Callable) -> list[bytes]:
    """S3's error document: <Error> with Code, Message, the refusal's own elements, RequestId and HostId."""
    request_id = secrets.token_hex(8).upper()
    host_id = base64.b64encode(secrets.token_bytes(48)).decode()
    details = "".join(f"<{name}>{escape(str(value))}</{name}>" for name, value in refusal.details.items())
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{refusal.code}</Code><Message>{escape(refusal.message)}</Message>{details}"
        f"<RequestId>{request_id}</RequestId><HostId>{host_id}</HostId></Error>"
    ).encode()
    headers = [
        ("Content-Type", "application/xml"),
        ("Content-Length", str(len(body))),
        ("x-amz-request-id", request_id),
        ("x-amz-id-2", host_id),
        # moto (flask-cors) allows every origin on every answer: a browser reads a refusal as it reads a success.
        ("Access-Control-Allow-Origin", "*"),
    ]
    start_response(f"{refusal.status} {HTTPStatus(refusal.status).phrase}", headers)
    return [body]
