"""make deploy-check's comparisons (ops/deploy_check/checks.py) catch a deployed stack that differs from template.yaml.

The "deployed" side is built from the template in the shape the AWS read-back APIs answer, then one fact is
changed: each comparison must name that fact. Nothing here starts LocalStack (make deploy-check does).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ops.deploy_check.checks import (
    compare_bucket,
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
