"""Presigned POST uploads through ``python -m local`` are kept across a restart, as PUT objects are.

One runner (``--no-demo``) takes three uploads moto accepts (a 204, a 303 on ``success_action_redirect``, a key
made from ``${filename}``), a PUT, and two uploads the policy check refuses. Stopped with SIGTERM, then started
again on the same state directory, it has the accepted objects with the same body, content type and ETag, under
the keys moto gave them (from a browser's Windows path moto makes another key than S3 would: the key kept is
moto's). The refused uploads never reached moto, so they added no line to the state journal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stack.process import RunnerProcess
from tests.support.lambdas import stack
from tests.support.s3_post import error, post_form, s3_client, upload

MEDIA = "workspaces/ws_X/projects/prj_Y/media"
JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(255, -1, -1)) * 30


def _listing(s3: Any, bucket: str) -> list[tuple[str, int, str]]:
    return [(o["Key"], o["Size"], o["ETag"]) for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]


class Runner:
    """``python -m local --no-demo`` on one state directory, restarted at will."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.process: RunnerProcess | None = None

    def start(self) -> Any:
        """Start it; an S3 client of its moto."""
        self.process = RunnerProcess(self.state_dir)
        self.process.command.append("--no-demo")
        self.process.start()
        return s3_client(json.loads((self.state_dir / "runner.json").read_text())["awsEndpoint"])

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()  # SIGTERM
            self.process = None

    def journal(self) -> list[dict[str, Any]]:
        """The lines of the current generation's state journal."""
        (path,) = (self.state_dir / "state").glob("journal-*.ndjson")
        return [json.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[Runner]:
    kept = Runner(tmp_path)
    try:
        yield kept
    finally:
        kept.stop()


def test_posted_uploads_survive_a_restart_and_refused_ones_leave_no_journal_line(runner: Runner) -> None:
    s3, bucket = runner.start(), stack().physical_name("ContentBucket")
    plain = upload(s3, bucket, f"{MEDIA}/plain.jpg", JPEG)
    assert plain.post().status_code == 204
    redirect = "http://127.0.0.1/uploaded"
    redirected = s3.generate_presigned_post(
        Bucket=bucket, Key=f"{MEDIA}/redirected.png",
        Fields={"Content-Type": "image/png", "success_action_redirect": redirect},
        Conditions=[{"Content-Type": "image/png"}, {"success_action_redirect": redirect}], ExpiresIn=300,
    )  # fmt: skip
    answer = post_form(redirected["url"], redirected["fields"], PNG)
    assert answer.status_code == 303 and answer.headers["location"].startswith(redirect)
    named = s3.generate_presigned_post(
        Bucket=bucket, Key=f"{MEDIA}/named/${{filename}}", Fields={"Content-Type": "image/png"},
        Conditions=[{"Content-Type": "image/png"}], ExpiresIn=300,
    )  # fmt: skip
    assert post_form(named["url"], named["fields"], PNG, filename="C:\\fakepath\\photo.png").status_code == 204
    s3.put_object(Bucket=bucket, Key=f"{MEDIA}/put.txt", Body=b"put", ContentType="text/plain")  # as before
    listed = _listing(s3, bucket)
    bodies = {key: {plain.key: JPEG, f"{MEDIA}/put.txt": b"put"}.get(key, PNG) for key, _, _ in listed}
    assert len(bodies) == 4
    stored = {key: s3.head_object(Bucket=bucket, Key=key) for key in bodies}
    journal = runner.journal()
    assert {line["key"] for line in journal if line.get("s3") == bucket} == set(bodies)

    oversized = upload(s3, bucket, f"{MEDIA}/oversized.jpg", JPEG)
    assert error(oversized.post(JPEG * 2)).code == "EntityTooLarge"
    retyped = plain.post(changed={"Content-Type": "text/html"})  # the same key, another type than signed
    assert (error(retyped).status, error(retyped).code) == (403, "AccessDenied")
    assert runner.journal() == journal

    runner.stop()
    s3 = runner.start()
    assert _listing(s3, bucket) == listed  # and no other key: the refused uploads stored none
    for key, head in stored.items():
        got = s3.get_object(Bucket=bucket, Key=key)
        assert got["Body"].read() == bodies[key]
        assert (got["ContentType"], got["ETag"]) == (head["ContentType"], head["ETag"])
