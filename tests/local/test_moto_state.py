"""The ``aws`` fixture's restored resources (``tests/support/moto_state.py``) are what ``create_resources`` makes, and
a test never sees what an earlier one wrote."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import boto3
from moto import mock_aws

from local.aws.emulator import create_resources
from tests.support.lambdas import stack
from tests.support.moto_state import with_template_resources


def described() -> dict[str, Any]:
    """Every table, bucket and queue as the API describes them, without what changes from one creation to the next."""
    dynamodb, s3, sqs = boto3.client("dynamodb"), boto3.client("s3"), boto3.client("sqs")
    tables = {}
    for name in dynamodb.list_tables()["TableNames"]:
        table: dict[str, Any] = dict(dynamodb.describe_table(TableName=name)["Table"])
        for moving in ("CreationDateTime", "TableId", "LatestStreamArn", "LatestStreamLabel"):
            table.pop(moving, None)
        tables[name] = table | {"ttl": dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]}
    buckets = {
        b["Name"]: s3.get_bucket_versioning(Bucket=b["Name"]).get("Status") for b in s3.list_buckets()["Buckets"]
    }
    queues = {}
    for url in sqs.list_queues()["QueueUrls"]:
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        queues[url] = {k: v for k, v in attributes.items() if k not in ("CreatedTimestamp", "LastModifiedTimestamp")}
    return {"tables": tables, "buckets": buckets, "queues": queues}


def create() -> None:
    clients = {name: boto3.client(name) for name in ("dynamodb", "s3", "secretsmanager", "sqs")}
    create_resources(stack(), clients["dynamodb"], clients["s3"], secrets=clients["secretsmanager"], sqs=clients["sqs"])


def held() -> dict[str, Any]:
    dynamodb, s3, sqs = boto3.client("dynamodb"), boto3.client("s3"), boto3.client("sqs")
    return {
        "items": dynamodb.scan(TableName=stack().physical_name("MainTable"))["Count"],
        "objects": s3.list_objects_v2(Bucket=stack().physical_name("ContentBucket"))["KeyCount"],
        "messages": [
            sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
            for url in sqs.list_queues()["QueueUrls"]
        ],
    }


def test_a_restored_state_is_the_created_one_without_an_earlier_tests_writes() -> None:
    """Three tests' worth: each finds the resources as made, nothing in them, and writes to each."""
    seen = []
    for _ in range(3):
        with mock_aws():  # as the aws fixture: made in the process's first test, restored from a copy after
            with_template_resources(create)
            seen.append((described(), held()))
            dynamodb, s3, sqs = boto3.client("dynamodb"), boto3.client("s3"), boto3.client("sqs")
            item = {"pk": {"S": "W#1"}, "sk": {"S": "A"}}
            dynamodb.put_item(TableName=stack().physical_name("MainTable"), Item=item)
            s3.put_object(Bucket=stack().physical_name("ContentBucket"), Key="workspaces/w/x.txt", Body=b"x")
            for url in sqs.list_queues()["QueueUrls"]:
                sqs.send_message(QueueUrl=url, MessageBody="{}")
            assert held()["items"] == 1
    with mock_aws():
        create()
        made = described()
    empty = {"items": 0, "objects": 0, "messages": [{"ApproximateNumberOfMessages": "0"}] * len(made["queues"])}
    assert seen == [(made, empty)] * 3


def test_the_aws_fixture_is_moto_even_when_boto3s_default_session_came_first(tmp_path: Path) -> None:
    """A default boto3 session made before moto's import has none of moto's handlers; the fixture keeps its session
    between tests, so it must not keep that one. In a fresh process that makes the session first, as an earlier
    test of the process may: the fixture's clients still reach moto (before the fix, every call went to AWS)."""
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    probe = tmp_path / "test_probe.py"
    probe.write_text("def test_moto(aws):\n    assert aws.dynamodb.list_tables()['TableNames']\n")
    arguments = ["-q", "-p", "no:cacheprovider", "--rootdir", str(root), "-c", str(root / "pyproject.toml"), str(probe)]
    script = f"import sys, boto3, pytest\nboto3.setup_default_session()\nsys.exit(pytest.main({arguments!r}))"
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=300,
                          env=os.environ | {"AWS_MAX_ATTEMPTS": "1"}, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
