"""make deploy-check's comparisons (ops/deploy_check/checks.py) catch a deployed stack that differs from template.yaml.

The "deployed" side is built from the template in the shape the AWS read-back APIs answer, then one fact is
changed: each comparison must name that fact. Nothing here starts LocalStack (make deploy-check does).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ops.deploy_check.checks import (
    CLOUDFRONT_NOT_MODELLED,
    Result,
    cloudfront_results,
    compare_bucket,
    compare_parameter,
    compare_queue,
    compare_routes,
    compare_table,
    deployed_routes,
    deployed_table_shape,
    expected_routes,
    table_shape,
)
from tests.support.lambdas import stack


def as_get_resources(routes: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """API Gateway's GetResources items (embed=methods) for these (method, path) routes."""
    paths: dict[str, dict[str, Any]] = {}
    for method, path in routes:
        paths.setdefault(path, {})[method] = {"httpMethod": method}
    return [{"path": "/", "id": "root"}] + [{"path": p, "resourceMethods": m} for p, m in paths.items()]


def as_describe_table(props: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """DescribeTable's Table and DescribeTimeToLive's TimeToLiveDescription for a table deployed as written."""
    table = {"KeySchema": props["KeySchema"], "GlobalSecondaryIndexes": props.get("GlobalSecondaryIndexes", [])}
    spec = props.get("TimeToLiveSpecification")
    ttl = (
        {"TimeToLiveStatus": "ENABLED", "AttributeName": spec["AttributeName"]}
        if spec
        else {"TimeToLiveStatus": "DISABLED"}
    )
    return table, ttl


def test_the_route_tables_match_when_deployed_as_written_and_cors_adds_options() -> None:
    for api in stack().of_type("AWS::Serverless::Api"):
        expected = expected_routes(stack(), api)
        assert ("ANY", "/{proxy+}") in expected
        assert {path for method, path in expected if method == "OPTIONS"} == {path for _, path in expected}
        assert compare_routes(expected, deployed_routes(as_get_resources(expected))) == []


def test_a_route_missing_from_the_deployed_api_is_named() -> None:
    expected = expected_routes(stack(), "PortalApi")
    dropped = next(route for route in sorted(expected) if route[0] == "POST")
    deployed = deployed_routes(as_get_resources(expected - {dropped}))
    assert compare_routes(expected, deployed) == [f"missing {dropped[0]} {dropped[1]}"]
    assert compare_routes(expected - {dropped}, expected) == [f"not in the template: {dropped[0]} {dropped[1]}"]


def test_each_table_matches_when_deployed_as_written() -> None:
    for name, res in stack().of_type("AWS::DynamoDB::Table").items():
        deployed = deployed_table_shape(*as_describe_table(res["Properties"]))
        assert compare_table(table_shape(res["Properties"]), deployed) == [], name


def test_a_wrong_ttl_attribute_a_missing_ttl_and_a_changed_index_are_named() -> None:
    props = stack().resources["MainTable"]["Properties"]
    table, ttl = as_describe_table(props)
    expected = table_shape(props)
    assert expected["ttl"] == "expiresAt"
    assert compare_table(expected, deployed_table_shape(table, {**ttl, "AttributeName": "ttl"})) == [
        "ttl: template 'expiresAt', deployed 'ttl'"
    ]
    assert compare_table(expected, deployed_table_shape(table, {"TimeToLiveStatus": "DISABLED"}))[0].startswith("ttl:")
    changed = copy.deepcopy(table)
    changed["GlobalSecondaryIndexes"][0]["Projection"] = {"ProjectionType": "KEYS_ONLY"}
    assert [p.split(":")[0] for p in compare_table(expected, deployed_table_shape(changed, ttl))] == ["indexes"]


def test_the_bucket_lifecycle_in_s3_spelling_matches_cloudformation_spelling_and_a_change_is_named() -> None:
    props = stack().resources["ContentBucket"]["Properties"]
    s3_rules: list[dict[str, Any]] = [  # GetBucketLifecycleConfiguration's answer for the template's two rules
        {"ID": "AbortIncompleteUploads", "Status": "Enabled", "Filter": {},
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 7}},
        {"ID": "ExpireNoncurrentVersions", "Status": "Enabled", "Filter": {},
         "Expiration": {"ExpiredObjectDeleteMarker": True}, "NoncurrentVersionExpiration": {"NoncurrentDays": 30}},
    ]  # fmt: skip
    assert compare_bucket(props, "Enabled", s3_rules) == []
    assert compare_bucket(props, "Enabled", None) == []  # not stored at all: readback.py reports "not modelled"
    assert compare_bucket(props, "Suspended", s3_rules) == ["versioning: template 'Enabled', deployed 'Suspended'"]
    shorter = copy.deepcopy(s3_rules)
    shorter[1]["NoncurrentVersionExpiration"]["NoncurrentDays"] = 1
    assert [p.split(":")[0] for p in compare_bucket(props, "Enabled", shorter)] == ["lifecycle rules"]


def test_a_queue_redriving_to_the_wrong_queue_or_not_at_all_is_named() -> None:
    queues = stack().of_type("AWS::SQS::Queue")
    arns = {name: f"arn:aws:sqs:us-east-1:000000000000:{name}" for name in queues}
    props = queues["PurgeQueue"]["Properties"]
    redrive = {
        "deadLetterTargetArn": arns["PurgeDeadLetterQueue"],
        "maxReceiveCount": props["RedrivePolicy"]["maxReceiveCount"],
    }
    attributes = {"VisibilityTimeout": str(props["VisibilityTimeout"]), "RedrivePolicy": json.dumps(redrive)}
    assert compare_queue(props, attributes, arns) == []
    elsewhere = {**attributes, "RedrivePolicy": json.dumps({**redrive, "deadLetterTargetArn": arns["PurgeQueue"]})}
    assert [p.split(":")[0] for p in compare_queue(props, elsewhere, arns)] == ["dead-letter queue"]
    assert compare_queue(props, {"VisibilityTimeout": attributes["VisibilityTimeout"]}, arns) == [
        "RedrivePolicy: missing"
    ]
    assert compare_queue(props, {**attributes, "VisibilityTimeout": "30"}, arns)[0].startswith("VisibilityTimeout:")


CLOUDFRONT = ("ConsoleDistribution", "ConsoleHeadersPolicy", "ConsoleOriginAccessControl", "ConsoleRewriteFunction")


def placeholders() -> dict[str, dict[str, Any]]:
    """ListStackResources for the console's CloudFront resources as LocalStack's community edition keeps them."""
    return {n: {"PhysicalResourceId": f"{n}-placeholder", "ResourceStatus": "CREATE_COMPLETE"} for n in CLOUDFRONT}


def test_cloudfront_placeholders_are_not_modelled_never_ok() -> None:
    """LocalStack's community CloudFormation keeps a placeholder and CloudFront's API has nothing: each resource is
    reported with the reason, never "ok"; one missing from the stack altogether is a FAIL."""
    asked: list[tuple[str, str]] = []

    def nothing(kind: str, physical: str) -> None:
        asked.append((kind, physical))

    results = cloudfront_results(stack(), placeholders(), nothing)
    assert [(r.check, r.status) for r in results] == [
        ("Distribution ConsoleDistribution", "not modelled"),
        ("ResponseHeadersPolicy ConsoleHeadersPolicy", "not modelled"),
        ("OriginAccessControl ConsoleOriginAccessControl", "not modelled"),
        ("Function ConsoleRewriteFunction", "not modelled"),
    ]
    assert all(r.detail == CLOUDFRONT_NOT_MODELLED for r in results) and "no CloudFront provider" in results[0].detail
    assert len(asked) == 4  # each was asked of CloudFront's API before it was called a placeholder
    missing = {k: v for k, v in placeholders().items() if k != "ConsoleDistribution"}
    assert cloudfront_results(stack(), missing, nothing)[0] == Result(
        "Distribution ConsoleDistribution", "FAIL", "not in the stack"
    )


def test_a_distribution_read_back_is_compared_and_a_wrong_behaviour_is_named() -> None:
    config = stack().resources["ConsoleDistribution"]["Properties"]["DistributionConfig"]
    answer = {  # GetDistributionConfig's DistributionConfig for the distribution as the template writes it
        "Origins": {"Quantity": 2, "Items": config["Origins"]},
        "DefaultCacheBehavior": config["DefaultCacheBehavior"],
        "CacheBehaviors": {"Quantity": 1, "Items": config["CacheBehaviors"]},
    }
    found = {"AWS::CloudFront::Distribution": answer}
    results = cloudfront_results(stack(), placeholders(), lambda kind, _: found.get(kind, {}))
    assert {r.status for r in results} == {"ok"}
    wrong = copy.deepcopy(answer)
    wrong["CacheBehaviors"]["Items"][0]["TargetOriginId"] = "console"  # /api/* served from the bucket
    found = {"AWS::CloudFront::Distribution": wrong}
    first = cloudfront_results(stack(), placeholders(), lambda kind, _: found.get(kind, {}))[0]
    assert first.status == "FAIL" and first.detail.startswith("behaviours:")


def test_the_console_address_parameter_is_read_back_by_the_name_the_mailers_are_given() -> None:
    name = "/deploy-check/console-url"
    assert compare_parameter(name, {"Name": name, "Value": "https://d1.cloudfront.net"}) == []
    assert compare_parameter(name, None) == [f"no parameter {name}"]
    assert compare_parameter(name, {"Name": "/other/console-url", "Value": "https://x"})[0].startswith("name:")
    assert compare_parameter(name, {"Name": name, "Value": "http://x"}) == ["value 'http://x' is not an https URL"]


def test_the_console_bucket_is_read_back_as_the_other_buckets_are() -> None:
    """readback.py reads back every bucket of the template (versioning, lifecycle): the console's is one."""
    props = stack().resources["ConsoleBucket"]["Properties"]
    assert "ConsoleBucket" in stack().of_type("AWS::S3::Bucket")
    assert compare_bucket(props, None, None) == []
    assert compare_bucket(props, "Enabled", None) == ["versioning: template None, deployed 'Enabled'"]
