"""Read the deployed stack back through the AWS APIs (boto3 at LocalStack's endpoint) and compare with the template.

The comparisons are checks.py's. Where LocalStack accepts a property but does not keep it, the result says
"not modelled" rather than passing silently: docs/deploy-check.md lists those.
"""

from __future__ import annotations

from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from stack.template import Stack

from .checks import (
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
    result,
    table_shape,
)


def stack_resources(cloudformation: Any, name: str) -> dict[str, dict[str, Any]]:
    pages = cloudformation.get_paginator("list_stack_resources").paginate(StackName=name)
    return {r["LogicalResourceId"]: r for page in pages for r in page["StackResourceSummaries"]}


def check_stack(session: boto3.Session, endpoint: str, name: str, stack: Stack) -> list[Result]:
    def client(service: str) -> Any:
        return session.client(service, endpoint_url=endpoint)  # type: ignore[call-overload]

    cloudformation = client("cloudformation")
    status = cloudformation.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]
    deployed = stack_resources(cloudformation, name)
    incomplete = sorted(k for k, r in deployed.items() if r["ResourceStatus"] != "CREATE_COMPLETE")
    results = [
        result("stack", [f"status {status}"] if status != "CREATE_COMPLETE" else []),
        result(
            f"{len(deployed)} resources CREATE_COMPLETE",
            [f"not complete: {', '.join(incomplete)}"] if incomplete else [],
        ),
    ]

    apigateway = client("apigateway")
    for api in stack.of_type("AWS::Serverless::Api"):
        pages = apigateway.get_paginator("get_resources").paginate(
            restApiId=deployed[api]["PhysicalResourceId"], embed=["methods"]
        )
        found = deployed_routes([item for page in pages for item in page["items"]])
        expected = expected_routes(stack, api)
        results.append(result(f"api {api}: {len(expected)} routes", compare_routes(expected, found)))

    dynamodb = client("dynamodb")
    for table, res in stack.of_type("AWS::DynamoDB::Table").items():
        physical = deployed[table]["PhysicalResourceId"]
        shape = deployed_table_shape(
            dynamodb.describe_table(TableName=physical)["Table"],
            dynamodb.describe_time_to_live(TableName=physical)["TimeToLiveDescription"],
        )
        results.append(result(f"table {table}", compare_table(table_shape(res["Properties"]), shape)))

    s3 = client("s3")
    for bucket, res in stack.of_type("AWS::S3::Bucket").items():
        physical = deployed[bucket]["PhysicalResourceId"]
        try:
            rules = s3.get_bucket_lifecycle_configuration(Bucket=physical)["Rules"]
        except ClientError as error:
            if error.response["Error"]["Code"] != "NoSuchLifecycleConfiguration":
                raise
            rules = None
        versioning = s3.get_bucket_versioning(Bucket=physical).get("Status")
        results.append(
            result(f"bucket {bucket} (versioning, lifecycle)", compare_bucket(res["Properties"], versioning, rules))
        )
        if rules is None and res["Properties"].get("LifecycleConfiguration"):
            detail = "LocalStack's AWS::S3::Bucket provider does not apply LifecycleConfiguration"
            results.append(Result(f"bucket {bucket} lifecycle rules", "not modelled", detail))

    sqs = client("sqs")
    queues = stack.of_type("AWS::SQS::Queue")
    attributes = {
        queue: sqs.get_queue_attributes(QueueUrl=deployed[queue]["PhysicalResourceId"], AttributeNames=["All"])[
            "Attributes"
        ]
        for queue in queues
    }
    arns = {queue: found["QueueArn"] for queue, found in attributes.items()}
    for queue, res in queues.items():
        results.append(result(f"queue {queue}", compare_queue(res["Properties"], attributes[queue], arns)))

    alarms = stack.of_type("AWS::CloudWatch::Alarm")
    names = [deployed[a]["PhysicalResourceId"] for a in alarms if a in deployed]
    describe_alarms = client("cloudwatch").get_paginator("describe_alarms")
    found_alarms = {
        a["AlarmName"]
        for start in range(0, len(names), 100)  # DescribeAlarms takes at most 100 names, and answers in pages
        for page in describe_alarms.paginate(AlarmNames=names[start : start + 100])
        for a in page["MetricAlarms"]
    }
    missing = sorted(a for a in alarms if a not in deployed or deployed[a]["PhysicalResourceId"] not in found_alarms)
    results.append(result(f"{len(alarms)} alarms", [f"missing: {', '.join(missing)}"] if missing else []))

    results += console_results(client, stack, deployed, name)

    for board in stack.of_type("AWS::CloudWatch::Dashboard"):
        reason = deployed.get(board, {}).get("ResourceStatusReason", "")
        if board not in deployed:
            results.append(Result(f"dashboard {board}", "FAIL", "not in the stack"))
        elif "not supported" in reason:  # LocalStack keeps a placeholder; the dashboard itself is not created
            results.append(Result(f"dashboard {board}", "not modelled", reason))
        else:
            results.append(result(f"dashboard {board}", []))
    return results


def console_results(client: Any, stack: Stack, deployed: dict[str, dict[str, Any]], name: str) -> list[Result]:
    """The console's CloudFront resources and the address parameter (its bucket is read back with the others)."""
    cloudfront = client("cloudfront")
    results = cloudfront_results(stack, deployed, lambda kind, physical: read_cloudfront(cloudfront, kind, physical))
    ssm = client("ssm")
    for parameter, res in stack.of_type("AWS::SSM::Parameter").items():
        expected = Stack(stack.template, stack_name=name, region=stack.region).resolve(res["Properties"]["Name"])
        try:
            found = ssm.get_parameter(Name=deployed[parameter]["PhysicalResourceId"])["Parameter"]
        except (ClientError, KeyError):
            found = None
        results.append(result(f"parameter {parameter}", compare_parameter(expected, found)))
    return results


READERS = {
    "AWS::CloudFront::Distribution": lambda cf, i: cf.get_distribution_config(Id=i)["DistributionConfig"],
    "AWS::CloudFront::OriginAccessControl": lambda cf, i: cf.get_origin_access_control(Id=i)["OriginAccessControl"],
    "AWS::CloudFront::Function": lambda cf, i: cf.describe_function(Name=i)["FunctionSummary"],
    "AWS::CloudFront::ResponseHeadersPolicy": lambda cf, i: cf.get_response_headers_policy(Id=i)[
        "ResponseHeadersPolicy"
    ],
}


def read_cloudfront(cloudfront: Any, kind: str, physical: str) -> dict[str, Any] | None:
    """The resource as CloudFront's API answers it; None where the API has none (LocalStack's community edition
    answers every CloudFront call with an error: the service is not in it)."""
    reader = READERS.get(kind)
    if reader is None:
        return None
    try:
        found: dict[str, Any] = reader(cloudfront, physical)
    except (ClientError, BotoCoreError):
        return None
    return found
