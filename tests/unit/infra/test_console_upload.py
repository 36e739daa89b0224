"""ops/console_upload.py on moto: the console's build to the stack's bucket with its types and cache headers, a
re-upload removing what the new build lacks, and index.html invalidated at the distribution."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ops import console_upload
from ops.__main__ import main as ops_main

REGION = "us-east-1"


@pytest.fixture
def deployed(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A stack in moto whose outputs name a bucket and a distribution, as template.yaml's do."""
    from moto import mock_aws

    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        import boto3

        session = boto3.session.Session(region_name=REGION)
        s3, cloudfront = session.client("s3"), session.client("cloudfront")
        s3.create_bucket(Bucket="console-files")
        distribution = cloudfront.create_distribution(
            DistributionConfig={
                "CallerReference": "test",
                "Comment": "",
                "Enabled": True,
                "Origins": {"Quantity": 1, "Items": [{"Id": "console", "DomainName": "console-files.s3.amazonaws.com",
                                                      "S3OriginConfig": {"OriginAccessIdentity": ""}}]},
                "DefaultCacheBehavior": {"TargetOriginId": "console", "ViewerProtocolPolicy": "redirect-to-https",
                                         "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6"},
            }
        )["Distribution"]  # fmt: skip
        outputs = {"ConsoleBucketName": "console-files", "ConsoleDistributionId": distribution["Id"],
                   "ConsoleUrl": f"https://{distribution['DomainName']}"}  # fmt: skip
        template = json.dumps({"Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
                               "Outputs": {k: {"Value": v} for k, v in outputs.items()}})  # fmt: skip
        session.client("cloudformation").create_stack(StackName="svc", TemplateBody=template)
        yield {"session": session, "s3": s3, "cloudfront": cloudfront, "distribution": distribution["Id"]}


def build(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def stored(s3: Any) -> dict[str, tuple[str, str, str]]:
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="console-files").get("Contents", [])]
    heads = {k: s3.get_object(Bucket="console-files", Key=k) for k in keys}
    return {k: (h["ContentType"], h["CacheControl"], h["Body"].read().decode()) for k, h in heads.items()}


def test_a_build_is_uploaded_with_types_and_cache_headers_and_a_rebuild_deletes_stale_files(
    deployed: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = build(tmp_path / "one", {"index.html": "<html>1", "assets/index-aaa.js": "a", "assets/index-aaa.css": "c",
                                     "favicon.svg": "<svg/>"})  # fmt: skip
    assert console_upload.main("svc", deployed["session"], first) == 0
    assert stored(deployed["s3"]) == {
        "index.html": ("text/html; charset=utf-8", "no-cache", "<html>1"),
        "assets/index-aaa.js": ("text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "a"),
        "assets/index-aaa.css": ("text/css; charset=utf-8", "public, max-age=31536000, immutable", "c"),
        "favicon.svg": ("image/svg+xml", "public, max-age=3600", "<svg/>"),
    }
    assert "4 files" in capsys.readouterr().out

    second = build(tmp_path / "two", {"index.html": "<html>2", "assets/index-bbb.js": "b", "favicon.svg": "<svg/>"})
    done = console_upload.upload(
        deployed["s3"], deployed["cloudfront"], console_upload.stack_outputs(
            deployed["session"].client("cloudformation"), "svc"), second
    )  # fmt: skip
    assert sorted(done.deleted) == ["assets/index-aaa.css", "assets/index-aaa.js"]
    assert done.uploaded[-1] == "index.html"  # last: no page names an asset not yet uploaded
    assert sorted(stored(deployed["s3"])) == ["assets/index-bbb.js", "favicon.svg", "index.html"]
    assert stored(deployed["s3"])["index.html"][2] == "<html>2"

    invalidations = deployed["cloudfront"].list_invalidations(DistributionId=deployed["distribution"])
    made = invalidations["InvalidationList"]["Items"]
    assert len(made) == 2 and done.invalidation in {i["Id"] for i in made}
    paths = deployed["cloudfront"].get_invalidation(DistributionId=deployed["distribution"], Id=done.invalidation)
    assert paths["Invalidation"]["InvalidationBatch"]["Paths"]["Items"] == ["/index.html", "/"]


def test_no_build_or_no_console_output_says_what_to_do(deployed: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="run make console first"):
        console_upload.main("svc", deployed["session"], tmp_path)
    deployed["session"].client("cloudformation").create_stack(
        StackName="old", TemplateBody='{"Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}}'
    )
    with pytest.raises(SystemExit, match="has no output ConsoleBucketName, ConsoleDistributionId"):
        console_upload.main("old", deployed["session"], build(tmp_path, {"index.html": "x"}))


def test_the_ops_command_needs_a_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert ops_main(["console-upload"]) == 2
    assert "--stack NAME" in capsys.readouterr().err
