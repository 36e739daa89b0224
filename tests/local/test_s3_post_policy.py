"""Presigned POST uploads through moto's server with ``local.aws.s3_post.policy`` in front: refused as S3 refuses them.

moto 5.2.5 alone answers 204 and stores nearly every refused upload below (a form without a key makes it fail with a
500). Each is presigned by boto3 as the service presigns (exact content type, exact size), posted as a browser posts
it, and must leave nothing stored. A second moto server without the check, on the same backend, gives moto's own
answers to compare a passing upload's with.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from botocore.exceptions import ClientError
from urllib3 import encode_multipart_formdata
from werkzeug.wrappers import Request

from local.aws.emulator import MotoServer, start_moto
from local.aws.s3_post.form import CHUNK, read_form
from local.aws.s3_post.policy import PostPolicyCheck
from stack.process import RunnerProcess
from tests.support.lambdas import stack
from tests.support.s3_post import Upload, error, post_form, s3_client, upload

BUCKET = "post-policy-test"
JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40  # 10,244 bytes


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    """moto's server with the check in front, and a second one without it (moto's own answers); one backend."""
    checked, endpoint = start_moto(middleware=PostPolicyCheck)
    bare = MotoServer("127.0.0.1", 0).start()
    s3_client(endpoint).create_bucket(Bucket=BUCKET)
    try:
        yield endpoint, bare.endpoint
    finally:
        httpx.post(f"{endpoint}/moto-api/reset")  # moto's backends are the process's: leave them empty
        bare.stop()
        checked.stop()


@pytest.fixture
def s3(servers: tuple[str, str]) -> Any:
    return s3_client(servers[0])


def _key(request: pytest.FixtureRequest) -> str:
    return f"workspaces/ws_X/projects/prj_Y/media/{request.node.name}.jpg"


@pytest.fixture
def signed(s3: Any, request: pytest.FixtureRequest) -> Upload:
    return upload(s3, BUCKET, _key(request), JPEG)


def _stored(s3: Any, key: str) -> bool:
    try:
        s3.head_object(Bucket=BUCKET, Key=key)
    except ClientError as err:
        assert err.response["Error"]["Code"] == "404"
        return False
    return True


def test_a_correct_upload_is_stored_with_its_type_size_and_md5_etag(s3: Any, signed: Upload) -> None:
    answer = signed.post()
    assert (answer.status_code, answer.content) == (204, b"")
    head = s3.head_object(Bucket=BUCKET, Key=signed.key)
    assert (head["ContentType"], head["ContentLength"]) == ("image/jpeg", len(JPEG))
    assert head["ETag"] == f'"{hashlib.md5(JPEG).hexdigest()}"'  # noqa: S324 - S3's ETag of a single-part object
    assert s3.get_object(Bucket=BUCKET, Key=signed.key)["Body"].read() == JPEG


@pytest.mark.parametrize(
    ("file", "code", "elements"),
    [
        (JPEG * 500, "EntityTooLarge", {"ProposedSize": str(len(JPEG) * 500), "MaxSizeAllowed": str(len(JPEG))}),
        (JPEG[:-1], "EntityTooSmall", {"ProposedSize": str(len(JPEG) - 1), "MinSizeAllowed": str(len(JPEG))}),
    ],
    ids=["500-times-larger", "one-byte-smaller"],
)
def test_a_file_of_another_size_is_refused(
    s3: Any, signed: Upload, file: bytes, code: str, elements: dict[str, str]
) -> None:
    refused = error(signed.post(file))
    assert (refused.status, refused.code) == (400, code)
    assert {name: refused.elements[name] for name in elements} == elements
    assert not _stored(s3, signed.key)


@pytest.mark.parametrize(
    ("field", "value"),
    [("Content-Type", "text/html"), ("key", "workspaces/ws_OTHER/a.jpg")],
    ids=["another-content-type", "another-key"],
)
def test_a_field_the_policy_fixes_cannot_change(s3: Any, signed: Upload, field: str, value: str) -> None:
    refused = error(signed.post(changed={field: value}))
    assert (refused.status, refused.code) == (403, "AccessDenied")
    condition = f'["eq", "${field}", "{signed.fields[field]}"]'  # S3 shows a simple condition as its "eq" array
    assert refused.message == f"Invalid according to Policy: Policy Condition failed: {condition}"
    assert not _stored(s3, signed.key) and not _stored(s3, value)


def test_a_forged_signature_is_refused(s3: Any, signed: Upload) -> None:
    signature = signed.fields["x-amz-signature"]
    forged = ("0" if signature[0] != "0" else "1") + signature[1:]
    refused = error(signed.post(changed={"x-amz-signature": forged}))
    assert (refused.status, refused.code) == (403, "SignatureDoesNotMatch")
    assert refused.elements["SignatureProvided"] == forged and refused.elements["AWSAccessKeyId"] == "local"
    assert not _stored(s3, signed.key)


def test_a_policy_widened_without_signing_it_again_is_refused(s3: Any, signed: Upload) -> None:
    policy = json.loads(base64.b64decode(signed.fields["policy"]))
    policy["conditions"] = [
        ["content-length-range", 0, 10**9] if isinstance(c, list) and c[0] == "content-length-range" else c
        for c in policy["conditions"]
    ]
    widened = base64.b64encode(json.dumps(policy).encode()).decode()
    refused = error(signed.post(JPEG * 500, {"policy": widened}))
    assert (refused.status, refused.code) == (403, "SignatureDoesNotMatch")
    assert refused.elements["StringToSign"] == widened
    assert not _stored(s3, signed.key)


def test_an_expired_policy_is_refused(s3: Any, request: pytest.FixtureRequest) -> None:
    expired = upload(s3, BUCKET, _key(request), JPEG, expires=-1)  # signed correctly, expiring a second ago
    refused = error(expired.post())
    assert (refused.status, refused.code) == (403, "AccessDenied")
    assert refused.message == "Invalid according to Policy: Policy expired."
    assert not _stored(s3, expired.key)


def test_an_unknown_access_key_is_refused(servers: tuple[str, str], s3: Any, request: pytest.FixtureRequest) -> None:
    stranger = s3_client(servers[0], access_key="stranger")
    foreign = upload(stranger, BUCKET, _key(request), JPEG)
    refused = error(foreign.post())
    assert (refused.status, refused.code, refused.elements["AWSAccessKeyId"]) == (403, "InvalidAccessKeyId", "stranger")
    assert not _stored(s3, foreign.key)


def test_a_field_no_condition_names_is_refused_unless_ignored(s3: Any, signed: Upload) -> None:
    refused = error(signed.post(changed={"x-amz-meta-owner": "someone"}))
    assert (refused.status, refused.code) == (403, "AccessDenied")
    assert refused.message == "Invalid according to Policy: Extra input fields: x-amz-meta-owner"
    assert not _stored(s3, signed.key)
    assert signed.post(changed={"x-ignore-note": "a browser's own field"}).status_code == 204  # S3 ignores x-ignore-*


@pytest.mark.parametrize(
    ("drop", "answer"),
    [
        ("file", (400, "InvalidArgument", "file")),
        ("key", (400, "InvalidArgument", "key")),
        ("x-amz-signature", (400, "InvalidArgument", "X-Amz-Signature")),
        ("signing", (403, "AccessDenied", None)),  # no SigV4 field at all: anonymous, and the bucket is private
    ],
)
def test_a_form_missing_a_required_part_is_refused(
    s3: Any, signed: Upload, drop: str, answer: tuple[int, str, str | None]
) -> None:
    fields = {name: value for name, value in signed.fields.items() if name != drop}
    if drop == "signing":
        fields = {name: value for name, value in fields.items() if not name.startswith("x-amz-")}
    refused = error(post_form(signed.url, fields, None if drop == "file" else JPEG))
    assert (refused.status, refused.code, refused.elements.get("ArgumentName")) == answer
    assert not _stored(s3, signed.key)


def test_forms_s3_cannot_read_are_refused(s3: Any, signed: Upload) -> None:
    urlencoded = httpx.post(signed.url, data=signed.fields)  # moto alone stores the last field's name as the object
    assert (error(urlencoded).status, error(urlencoded).code) == (412, "PreconditionFailed")
    unbounded = httpx.post(signed.url, content=b"--x--", headers={"Content-Type": "multipart/form-data"})
    assert (error(unbounded).status, error(unbounded).code) == (400, "MalformedPOSTRequest")
    padded = post_form(signed.url, signed.fields | {"x-ignore-pad": "p" * 20 * 1024}, JPEG)
    assert error(padded).code == "MaxPostPreDataLengthExceeded"  # S3 reads at most 20 KB of fields
    assert not _stored(s3, signed.key)


def test_field_names_are_case_insensitive_and_fields_after_the_file_ignored(s3: Any, signed: Upload) -> None:
    fields = {name if name in ("key", "Content-Type") else name.upper(): value for name, value in signed.fields.items()}
    late = [("x-amz-meta-late", "not covered"), ("Content-Disposition", "attachment")]
    answer = post_form(signed.url, fields, JPEG, after=late)
    assert answer.status_code == 204, answer.text
    head = s3.head_object(Bucket=BUCKET, Key=signed.key)
    assert head["Metadata"] == {} and "ContentDisposition" not in head  # moto would have stored them
    assert head["ETag"] == f'"{hashlib.md5(JPEG).hexdigest()}"'  # noqa: S324 - the body cut after the file is intact


@pytest.mark.parametrize("size", [0, CHUNK - 1, CHUNK, 5 * CHUNK + 1])
def test_the_body_handed_on_is_the_one_received_closed_after_the_file(size: int) -> None:
    """Read chunk by chunk, whatever the file's size; moto's own form parser finds the same file in what it gets."""
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    form: list[tuple[str, Any]] = [("key", "k"), ("file", ("a.jpg", data, "image/jpeg"))]
    for after in ([], [("x-amz-meta-late", "x" * CHUNK)]):
        body, content_type = encode_multipart_formdata(form + after, boundary="b0undary")
        environ = {"CONTENT_TYPE": content_type, "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)}
        read = read_form(environ)
        handed_on = read.body.read()
        assert (read.fields, read.file_size, read.length) == ([("key", "k")], size, len(handed_on))
        assert handed_on == (body if not after else encode_multipart_formdata(form, boundary="b0undary")[0])
        environ |= {
            "REQUEST_METHOD": "POST",
            "CONTENT_LENGTH": str(len(handed_on)),
            "wsgi.input": io.BytesIO(handed_on),
        }
        moto_s = Request(environ)
        assert moto_s.files["file"].read() == data and list(moto_s.form) == ["key"]


@pytest.mark.parametrize(
    ("answer_as", "status"),
    [
        ({}, 204),
        ({"success_action_status": "200"}, 200),
        ({"success_action_status": "201"}, 201),
        ({"success_action_redirect": "http://127.0.0.1/done"}, 303),
    ],
)
def test_a_passing_upload_gets_moto_s_own_answer(
    servers: tuple[str, str], s3: Any, request: pytest.FixtureRequest, answer_as: dict[str, str], status: int
) -> None:
    signed = s3.generate_presigned_post(
        Bucket=BUCKET, Key=_key(request), Fields=answer_as | {"Content-Type": "image/jpeg"},
        Conditions=[{name: value} for name, value in answer_as.items()] + [{"Content-Type": "image/jpeg"}],
    )  # fmt: skip
    checked = post_form(signed["url"], signed["fields"], JPEG)
    moto_s = post_form(signed["url"].replace(servers[0], servers[1]), signed["fields"], JPEG)
    assert checked.status_code == status
    assert (checked.status_code, checked.content, checked.headers.get("location")) == (
        moto_s.status_code, moto_s.content, moto_s.headers.get("location"),
    )  # fmt: skip


def test_other_requests_pass_through_unread(servers: tuple[str, str], s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def unread(environ: Any) -> Any:
        raise AssertionError("read a request that is not a POST Object")

    monkeypatch.setattr("local.aws.s3_post.policy.read_form", unread)
    s3.put_object(Bucket=BUCKET, Key="plain/a.txt", Body=b"a", ContentType="text/plain")
    assert s3.get_object(Bucket=BUCKET, Key="plain/a.txt")["Body"].read() == b"a"
    deleted = s3.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": "plain/a.txt"}]})  # POST ?delete
    assert [d["Key"] for d in deleted["Deleted"]] == ["plain/a.txt"]
    endpoint, bare = servers
    for path in ("/", f"/{BUCKET}/some/key"):  # a form posted anywhere but a bucket: moto's own answer
        answers = [post_form(base + path, {"key": "k"}, b"x") for base in (endpoint, bare)]
        assert answers[0].status_code == answers[1].status_code and answers[0].content == answers[1].content
    dynamodb = boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="local", aws_secret_access_key="local",
    )  # fmt: skip
    dynamodb.create_table(
        TableName="t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )  # fmt: skip
    dynamodb.put_item(TableName="t", Item={"pk": {"S": "a"}})
    assert dynamodb.get_item(TableName="t", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}


def test_the_runner_checks_uploads(tmp_path: Path) -> None:
    """Through ``python -m local``: its moto stores a correct upload and refuses an oversized one."""
    runner = RunnerProcess(tmp_path)
    runner.command.append("--no-demo")
    runner.start()
    try:
        endpoint = json.loads((tmp_path / "runner.json").read_text())["awsEndpoint"]
        s3, bucket = s3_client(endpoint), stack().physical_name("ContentBucket")
        accepted = upload(s3, bucket, "workspaces/ws_X/projects/prj_Y/media/a.jpg", JPEG)
        assert accepted.post().status_code == 204
        assert s3.head_object(Bucket=bucket, Key=accepted.key)["ContentLength"] == len(JPEG)
        oversized = upload(s3, bucket, "workspaces/ws_X/projects/prj_Y/media/b.jpg", JPEG)
        assert error(oversized.post(JPEG * 500)).code == "EntityTooLarge"
        assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix=oversized.key)
    finally:
        runner.stop()
