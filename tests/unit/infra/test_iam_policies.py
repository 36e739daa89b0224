"""Evaluating the template's IAM policies ourselves (tests/support/iam_policies.py, iam_eval.py).

moto checks DynamoDB, Secrets Manager and SES against ``*`` and a transaction as one action; these tests pin the
evaluator that will judge each function's calls instead: IAM's wildcard and Deny rules, the conditions the template
uses (``dynamodb:LeadingKeys``, ``s3:prefix``), the per-item and per-key requests AWS authorizes, and, against the
real template as SAM expands it, what a few functions may and may not do.
"""

from __future__ import annotations

import json
import subprocess
from functools import cache
from typing import Any

import pytest

from stack.template import ACCOUNT_ID, TEMPLATE, Stack, load
from tests.support import iam_policies
from tests.support.iam_eval import (
    ConditionNotEvaluated,
    ConditionNotUnderstood,
    Statement,
    UnknownOperation,
    allowed,
    granting,
    matches,
    requests_of,
)
from tests.support.iam_policies import emulated_resources, function_policies, partition_keys

REGION = "us-east-1"
NAMES = emulated_resources()
MAIN, LEDGER, KEYS, RATES = (NAMES[t] for t in ("MainTable", "LedgerTable", "ApiKeysTable", "RateLimitsTable"))
BUCKET = NAMES["ContentBucket"]
# The template's tables by their emulated names, and the made-up tables of these tests, keyed on ``pk``.
PARTITIONS = partition_keys(TEMPLATE, NAMES) | dict.fromkeys(("A", "B", "a", "b", "t"), "pk")
QUEUE_URL = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/{NAMES['PurgeQueue']}"


def allow(actions: Any, resources: Any, effect: str = "Allow", **more: Any) -> Statement:
    return Statement.parse({"Effect": effect, "Action": actions, "Resource": resources} | more)


def table(name: str) -> str:
    return f"arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/{name}"


def permitted(statements: list[Statement], service: str, operation: str, **params: Any) -> bool:
    """Whether every request AWS authorizes for this call is allowed, its condition keys included."""
    requests = requests_of(service, operation, params, REGION, ACCOUNT_ID, partition_keys=PARTITIONS)
    return all(allowed(statements, *request) for request in requests)


def pairs(service: str, operation: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """The (action, resource) of each request AWS authorizes for this call."""
    return [(r.action, r.resource) for r in requests_of(service, operation, params, REGION, ACCOUNT_ID)]


def leading_keys(operation: str, **params: Any) -> list[Any]:
    """The ``dynamodb:LeadingKeys`` of each request of a DynamoDB call (None: not sent)."""
    requests = requests_of("dynamodb", operation, params, REGION, ACCOUNT_ID, partition_keys=PARTITIONS)
    return [r.context.get("dynamodb:leadingkeys") for r in requests]


def s(value: str) -> dict[str, str]:
    return {"S": value}


# --- IAM's matching and evaluation ---


def test_wildcards_span_arn_separators_and_actions_ignore_case() -> None:
    assert matches("arn:aws:s3:::b/workspaces/*", "arn:aws:s3:::b/workspaces/w1/projects/p.json")
    assert matches("s3:Get*", "s3:getobject", ignore_case=True)
    assert not matches("s3:Get*", "s3:getobject")  # resources and values are case-sensitive unless told
    assert (
        matches("table/t?", "table/t1") and not matches("table/t?", "table/t12") and not matches("table/t?", "table/t")
    )
    assert not matches("arn:aws:s3:::b", "arn:aws:s3:::b/key")  # no implicit prefix match
    assert matches("a.b+c", "a.b+c") and not matches("a.b+c", "axb+c")  # regex characters are literal


def test_an_action_pattern_is_case_insensitive_but_an_arn_is_not() -> None:
    statements = [allow("DynamoDB:get*", table("Main"))]
    assert allowed(statements, "dynamodb:GetItem", table("Main"))
    assert not allowed(statements, "dynamodb:GetItem", table("main"))
    assert not allowed(statements, "dynamodb:PutItem", table("Main"))


def test_an_explicit_deny_wins_over_any_allow() -> None:
    statements = [allow("s3:*", "*"), allow("s3:DeleteObject", "arn:aws:s3:::b/locked/*", effect="Deny")]
    assert allowed(statements, "s3:DeleteObject", "arn:aws:s3:::b/open/x")
    assert not allowed(statements, "s3:DeleteObject", "arn:aws:s3:::b/locked/x")
    assert granting(statements, "s3:DeleteObject", "arn:aws:s3:::b/locked/x") == []
    assert not allowed([], "s3:GetObject", "arn:aws:s3:::b/x")  # nothing allows: the implicit deny


def test_not_action_and_not_resource_invert_their_match() -> None:
    everything_but = Statement.parse({"Effect": "Allow", "NotAction": "iam:*", "NotResource": "arn:aws:s3:::secret/*"})
    assert allowed([everything_but], "s3:GetObject", "arn:aws:s3:::b/x")
    assert not allowed([everything_but], "iam:CreateUser", "*")
    assert not allowed([everything_but], "s3:GetObject", "arn:aws:s3:::secret/x")


def test_a_condition_is_kept_and_evaluated() -> None:
    listing = allow("s3:ListBucket", "arn:aws:s3:::b", Condition={"StringLike": {"s3:prefix": "workspaces/*"}})
    assert listing.condition == '{"StringLike": {"s3:prefix": "workspaces/*"}}'
    assert permitted([listing], "s3", "ListObjectsV2", Bucket="b", Prefix="workspaces/w1/")
    assert not permitted([listing], "s3", "ListObjectsV2", Bucket="b", Prefix="elsewhere/")
    assert not permitted([listing], "s3", "ListObjectsV2", Bucket="b")  # no Prefix: the key is not sent
    assert not permitted([listing], "s3", "HeadBucket", Bucket="b")
    # A conditioned Deny denies only where its condition holds.
    fence = allow("s3:ListBucket", "arn:aws:s3:::b", effect="Deny", Condition={"StringLike": {"s3:prefix": "secret/*"}})
    assert permitted([allow("s3:ListBucket", "arn:aws:s3:::b"), fence], "s3", "ListObjectsV2", Bucket="b", Prefix="x/")
    assert not permitted([allow("s3:*", "*"), fence], "s3", "ListObjectsV2", Bucket="b", Prefix="secret/a")


LIKE_INVITE = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["invite-*"]}}
ITEM_ACTIONS = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
                "dynamodb:ConditionCheckItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:BatchGetItem",
                "dynamodb:BatchWriteItem"]  # fmt: skip


def test_leading_keys_are_the_partition_of_each_item_a_call_touches() -> None:
    assert leading_keys("GetItem", TableName="t", Key={"pk": s("invite-ws#w1"), "sk": s("x")}) == [("invite-ws#w1",)]
    assert leading_keys("PutItem", TableName="t", Item={"pk": {"N": "7"}, "n": s("y")}) == [("7",)]
    assert leading_keys("UpdateItem", TableName="t", Key={"pk": "plain"}) == [("plain",)]  # a resource's values
    assert leading_keys("DeleteItem", TableName="t", Key={"pk": s("a")}) == [("a",)]
    named = {"KeyConditionExpression": "(#p = :v) AND begins_with(sk, :s)", "ExpressionAttributeNames": {"#p": "pk"},
             "ExpressionAttributeValues": {":v": s("USAGE#w1"), ":s": s("2024")}}  # fmt: skip
    assert leading_keys("Query", TableName="t", **named) == [("USAGE#w1",)]
    between = {"KeyConditionExpression": "sk BETWEEN :a AND :b AND :p = pk",
               "ExpressionAttributeValues": {":a": s("1"), ":b": s("2"), ":p": s("USAGE#w2")}}  # fmt: skip
    assert leading_keys("Query", TableName="t", **between) == [("USAGE#w2",)]
    legacy = {"KeyConditions": {"pk": {"AttributeValueList": [s("k")], "ComparisonOperator": "EQ"}}}
    assert leading_keys("Query", TableName="t", **legacy) == [("k",)]
    assert leading_keys("Scan", TableName="t") == [None]  # no partition: not sent
    batch = {"t": {"Keys": [{"pk": s("a")}, {"pk": s("b")}]}, "A": {"Keys": [{"pk": s("c")}]}}
    assert leading_keys("BatchGetItem", RequestItems=batch) == [("a", "b"), ("c",)]
    writes = [{"PutRequest": {"Item": {"pk": s("a"), "v": s("1")}}}, {"DeleteRequest": {"Key": {"pk": s("b")}}}]
    assert leading_keys("BatchWriteItem", RequestItems={"t": writes}) == [("a", "b")]
    items = [
        {"Put": {"TableName": "t", "Item": {"pk": s("a")}}},
        {"ConditionCheck": {"TableName": "t", "Key": {"pk": s("b")}, "ConditionExpression": "x"}},
        {"Update": {"TableName": "t", "Key": {"pk": s("c")}}},
        {"Delete": {"TableName": "A", "Key": {"pk": s("d")}}},
    ]
    assert leading_keys("TransactWriteItems", TransactItems=items) == [("a",), ("b",), ("c",), ("d",)]  # fmt: skip


def test_a_leading_keys_grant_allows_its_partitions_only_and_every_item_must_be_one() -> None:
    grant = allow(ITEM_ACTIONS, table("t"), Condition=LIKE_INVITE)
    mine, theirs = {"pk": s("invite-to#ab12")}, {"pk": s("USER#u1")}
    for operation, params in (("GetItem", {"Key": mine}), ("UpdateItem", {"Key": mine}), ("PutItem", {"Item": mine}),
                              ("DeleteItem", {"Key": mine})):  # fmt: skip
        assert permitted([grant], "dynamodb", operation, TableName="t", **params), operation
        other = dict.fromkeys(params, theirs)
        assert not permitted([grant], "dynamodb", operation, TableName="t", **other), operation
    query = {"KeyConditionExpression": "pk = :pk", "TableName": "t"}
    assert permitted([grant], "dynamodb", "Query", **query, ExpressionAttributeValues={":pk": s("invite-ws#w")})
    assert not permitted([grant], "dynamodb", "Query", **query, ExpressionAttributeValues={":pk": s("USER#u1")})
    assert not permitted([grant], "dynamodb", "Scan", TableName="t")  # every partition: refused (module docstring)
    assert permitted([grant], "dynamodb", "BatchGetItem", RequestItems={"t": {"Keys": [mine, mine]}})
    assert not permitted([grant], "dynamodb", "BatchGetItem", RequestItems={"t": {"Keys": [mine, theirs]}})
    mixed = [{"PutRequest": {"Item": mine}}, {"DeleteRequest": {"Key": theirs}}]
    assert not permitted([grant], "dynamodb", "BatchWriteItem", RequestItems={"t": mixed})
    checked = [{"Put": {"TableName": "t", "Item": mine}}, {"ConditionCheck": {"TableName": "t", "Key": theirs}}]
    assert permitted([grant], "dynamodb", "TransactWriteItems", TransactItems=checked[:1])
    assert not permitted([grant], "dynamodb", "TransactWriteItems", TransactItems=checked)
    # StringEquals is exact, and ForAnyValue needs one item of the partitions only.
    exact = allow("dynamodb:BatchGetItem", table("t"), Condition={"ForAllValues:StringEquals": {
        "dynamodb:LeadingKeys": ["invite-*", "USER#u1"]}})  # fmt: skip
    assert permitted([exact], "dynamodb", "BatchGetItem", RequestItems={"t": {"Keys": [theirs]}})
    assert not permitted([exact], "dynamodb", "BatchGetItem", RequestItems={"t": {"Keys": [mine]}})
    some = allow("dynamodb:BatchGetItem", table("t"), Condition={"ForAnyValue:StringLike": {
        "dynamodb:LeadingKeys": "invite-*"}})  # fmt: skip
    assert permitted([some], "dynamodb", "BatchGetItem", RequestItems={"t": {"Keys": [mine, theirs]}})
    assert not permitted([some], "dynamodb", "BatchGetItem", RequestItems={"t": {"Keys": [theirs]}})


@pytest.mark.parametrize(
    "condition",
    [{"Bool": {"aws:SecureTransport": "true"}}, {"StringLikeIfExists": {"s3:prefix": "a/*"}},
     {"StringNotLike": {"s3:prefix": "a/*"}}, {"ForAllValues:StringLike": {"dynamodb:Attributes": ["pk"]}},
     {"StringEquals": {"aws:SourceArn": "arn:aws:events:x"}}, {"ArnEquals": {"aws:SourceArn": "arn:aws:x"}},
     {"ForSomeValues:StringLike": {"dynamodb:LeadingKeys": ["a"]}}],
)  # fmt: skip
def test_a_condition_this_evaluator_does_not_know_is_an_error_not_a_pass(condition: dict[str, Any]) -> None:
    with pytest.raises(ConditionNotUnderstood):
        allow("dynamodb:GetItem", table("t"), Condition=condition)
    built = Statement("Allow", ("dynamodb:GetItem",), (table("t"),), condition=json.dumps(condition))  # not parsed
    with pytest.raises(ConditionNotUnderstood):
        permitted([built], "dynamodb", "GetItem", TableName="t", Key={"pk": s("a")})


def test_a_key_the_request_holds_but_cannot_be_read_is_an_error_where_a_condition_needs_it() -> None:
    on_index = allow("dynamodb:Query", table("t") + "/index/*", Condition=LIKE_INVITE)
    with pytest.raises(ConditionNotEvaluated, match="index"):
        permitted([on_index], "dynamodb", "Query", TableName="t", IndexName="gsi1", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": s("invite-x")})  # fmt: skip
    grant = allow(ITEM_ACTIONS, table("t"), Condition=LIKE_INVITE)
    with pytest.raises(ConditionNotEvaluated, match="without a string or number pk"):
        permitted([grant], "dynamodb", "GetItem", TableName="t", Key={"sk": s("only")})
    with pytest.raises(ConditionNotEvaluated, match="partition key of table unknown"):
        permitted([allow("dynamodb:GetItem", table("unknown"), Condition=LIKE_INVITE)], "dynamodb", "GetItem",
                  TableName="unknown", Key={"pk": s("invite-x")})  # fmt: skip
    with pytest.raises(ConditionNotEvaluated, match="key condition"):
        permitted([grant], "dynamodb", "Query", TableName="t", KeyConditionExpression="begins_with(pk, :p)",
                  ExpressionAttributeValues={":p": s("invite-")})  # fmt: skip
    # The same unreadable key, where no conditioned statement applies, is not needed: judged as before.
    assert permitted([allow("dynamodb:GetItem", table("t"))], "dynamodb", "GetItem", TableName="t", Key={})


# --- the requests AWS authorizes per call ---


def test_a_transaction_is_authorized_item_by_item_with_its_own_actions() -> None:
    items = [
        {"Put": {"TableName": "A", "Item": {}}},
        {"ConditionCheck": {"TableName": "A", "Key": {}, "ConditionExpression": "attribute_exists(pk)"}},
        {"Update": {"TableName": "B", "Key": {}, "UpdateExpression": "SET n = :n"}},
        {"Delete": {"TableName": "B", "Key": {}}},
    ]
    assert pairs("dynamodb", "TransactWriteItems", {"TransactItems": items}) == [
        ("dynamodb:PutItem", table("A")),
        ("dynamodb:ConditionCheckItem", table("A")),
        ("dynamodb:UpdateItem", table("B")),
        ("dynamodb:DeleteItem", table("B")),
    ]
    writer = [allow(["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"], [table("A"), table("B")])]
    assert not permitted(writer, "dynamodb", "TransactWriteItems", TransactItems=items)  # no ConditionCheckItem
    assert permitted(writer, "dynamodb", "TransactWriteItems", TransactItems=items[:1] + items[2:])
    checker = [*writer, allow("dynamodb:ConditionCheckItem", table("A"))]
    assert permitted(checker, "dynamodb", "TransactWriteItems", TransactItems=items)


def test_batches_are_authorized_once_per_table_and_queries_on_their_index() -> None:
    requests = pairs("dynamodb", "BatchWriteItem", {"RequestItems": {"A": [{}] * 3, "B": [{}]}})
    assert requests == [("dynamodb:BatchWriteItem", table("A")), ("dynamodb:BatchWriteItem", table("B"))]
    assert pairs("dynamodb", "Query", {"TableName": "A", "IndexName": "byId"}) == [
        ("dynamodb:Query", table("A") + "/index/byId")
    ]
    gets = {"TransactItems": [{"Get": {"TableName": "A", "Key": {}}}]}
    assert pairs("dynamodb", "TransactGetItems", gets) == [("dynamodb:GetItem", table("A"))]


def test_s3_is_authorized_per_key_and_per_version() -> None:
    projects = [allow(["s3:GetObject", "s3:DeleteObject"], "arn:aws:s3:::b/workspaces/*/projects/*")]
    assert permitted(projects, "s3", "GetObject", Bucket="b", Key="workspaces/w1/projects/p/a.json", Range="bytes=0-9")
    assert permitted(projects, "s3", "HeadObject", Bucket="b", Key="workspaces/w1/projects/a.json")
    assert not permitted(projects, "s3", "GetObject", Bucket="b", Key="workspaces/w1/conversations/t.json")
    assert not permitted(projects, "s3", "GetObject", Bucket="other", Key="workspaces/w1/projects/a.json")
    assert not permitted(projects, "s3", "GetObject", Bucket="b", Key="workspaces/w1/projects/a", VersionId="v1")
    assert not permitted(projects, "s3", "ListObjectsV2", Bucket="b", Prefix="workspaces/w1/projects/")
    assert not permitted(projects, "s3", "PutObject", Bucket="b", Key="workspaces/w1/projects/a.json")
    deleting = {"Objects": [{"Key": "workspaces/w1/projects/a"}, {"Key": "workspaces/w1/projects/b", "VersionId": "v"}]}
    assert pairs("s3", "DeleteObjects", {"Bucket": "b", "Delete": deleting}) == [
        ("s3:DeleteObject", "arn:aws:s3:::b/workspaces/w1/projects/a"),
        ("s3:DeleteObjectVersion", "arn:aws:s3:::b/workspaces/w1/projects/b"),
    ]
    copy = {"Bucket": "b", "Key": "to/k", "CopySource": "src/from%20here/k?versionId=v2"}
    assert pairs("s3", "CopyObject", copy) == [
        ("s3:PutObject", "arn:aws:s3:::b/to/k"),
        ("s3:GetObjectVersion", "arn:aws:s3:::src/from here/k"),
    ]
    versions = requests_of("s3", "ListObjectVersions", {"Bucket": "b", "Prefix": "w/"}, REGION, ACCOUNT_ID)
    assert versions == [("s3:ListBucketVersions", "arn:aws:s3:::b", {"s3:prefix": ("w/",)})]


def test_a_secret_is_matched_by_its_name_and_the_six_character_suffix() -> None:
    arn = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT_ID}:secret:"
    statements = [allow("secretsmanager:GetSecretValue", arn + "local-mediaurlsecret-??????")]
    assert permitted(statements, "secretsmanager", "GetSecretValue", SecretId="local-mediaurlsecret")
    assert permitted(statements, "secretsmanager", "GetSecretValue", SecretId=arn + "local-mediaurlsecret-AbC123")
    assert not permitted(statements, "secretsmanager", "GetSecretValue", SecretId="local-portaljwtsecret")
    assert not permitted(statements, "secretsmanager", "GetSecretValue", SecretId="local-mediaurlsecret-old")
    assert not permitted(statements, "secretsmanager", "GetSecretValue", SecretId=arn + "local-mediaurlsecret-AbC12")
    # Given moto's real ARN instead of the name, the policy resolves to the same pattern.
    with_arn = NAMES | {"MediaUrlSecret": arn + "local-mediaurlsecret-Zy9x8W"}
    assert function_policies(TEMPLATE, with_arn)["BrainR2Function"] == real_policies()["BrainR2Function"]


def test_queues_identities_models_and_metrics_name_their_resources() -> None:
    def one(service: str, operation: str, **params: Any) -> tuple[str, str]:
        (request,) = pairs(service, operation, params)
        return request

    queue = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:q"
    assert one("sqs", "SendMessage", QueueUrl=f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/q") == (
        "sqs:SendMessage", queue)  # fmt: skip
    assert one("sqs", "DeleteMessageBatch", QueueUrl=f"http://127.0.0.1:5000/{ACCOUNT_ID}/q", Entries=[]) == (
        "sqs:DeleteMessage", queue)  # fmt: skip
    assert one("ses", "SendEmail", Source="Portal <no-reply@example.com>", Destination={}, Message={}) == (
        "ses:SendEmail", f"arn:aws:ses:{REGION}:{ACCOUNT_ID}:identity/no-reply@example.com")  # fmt: skip
    raw = {"Data": b"From: a@example.org\r\nTo: b@example.org\r\n\r\nhi"}
    assert one("ses", "SendRawEmail", RawMessage=raw)[1].endswith(":identity/a@example.org")
    model = f"arn:aws:bedrock:{REGION}::foundation-model/amazon.nova-lite-v1:0"
    streamed = one("bedrock-runtime", "ConverseStream", modelId="amazon.nova-lite-v1:0", messages=[])
    assert streamed == ("bedrock:InvokeModelWithResponseStream", model)
    assert one("cloudwatch", "PutMetricData", Namespace="n", MetricData=[]) == ("cloudwatch:PutMetricData", "*")


UNKNOWN = [("dynamodb", "ExecuteStatement"), ("s3", "PutBucketPolicy"), ("s3", "ListBuckets"), ("sqs", "PurgeQueue"),
           ("kms", "Decrypt")]  # fmt: skip


@pytest.mark.parametrize(("service", "operation"), UNKNOWN)
def test_an_operation_not_known_raises_instead_of_passing(service: str, operation: str) -> None:
    params = {"Bucket": "b", "QueueUrl": "https://x/1/q"} if operation != "ListBuckets" else {}
    with pytest.raises(UnknownOperation, match=operation):
        requests_of(service, operation, params, REGION, ACCOUNT_ID)


# --- SAM's expansion: policy templates, on a template of our own ---

OWN_TEMPLATE = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  TableA:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
  TableB:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
  Media:
    Type: AWS::S3::Bucket
  Work:
    Type: AWS::SQS::Queue
  Writer:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/x
      Handler: handler.handler
      Runtime: python3.13
      Policies:
        - DynamoDBCrudPolicy: {TableName: !Ref TableA}
        - S3ReadPolicy: {BucketName: !Ref Media}
        - SQSSendMessagePolicy: {QueueName: !GetAtt Work.QueueName}
        - Statement:
            - Effect: Deny
              Action: dynamodb:DeleteItem
              Resource: !Join ["", [!GetAtt TableA.Arn]]
"""


@pytest.fixture(scope="module")
def own_policies(tmp_path_factory: pytest.TempPathFactory) -> list[Statement]:
    path = tmp_path_factory.mktemp("sam") / "template.yaml"
    path.write_text(OWN_TEMPLATE)
    names = {"TableA": "a", "TableB": "b", "Media": "media", "Work": "work"}
    return function_policies(path, names)["Writer"]


def test_a_crud_policy_on_one_table_allows_neither_another_table_nor_its_index(own_policies: list[Statement]) -> None:
    for action in ("GetItem", "PutItem", "UpdateItem", "Query", "BatchWriteItem", "ConditionCheckItem"):
        assert allowed(own_policies, f"dynamodb:{action}", table("a")), action
        assert not allowed(own_policies, f"dynamodb:{action}", table("b")), action
    assert allowed(own_policies, "dynamodb:Query", table("a") + "/index/byOwner")
    assert not allowed(own_policies, "dynamodb:Query", table("b") + "/index/byOwner")
    assert not allowed(own_policies, "dynamodb:DeleteItem", table("a"))  # the inline Deny (a Fn::Join) wins
    assert permitted(own_policies, "s3", "GetObject", Bucket="media", Key="any/key")
    assert not permitted(own_policies, "s3", "PutObject", Bucket="media", Key="any/key")
    assert permitted(
        own_policies, "sqs", "SendMessage", QueueUrl=f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/work"
    )
    assert not permitted(
        own_policies, "sqs", "SendMessage", QueueUrl=f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/b"
    )
    assert {s.policy for s in own_policies} >= {"AWSLambdaBasicExecutionRole", "WriterRolePolicy0"}


def test_the_expansion_is_cached_on_disk_by_the_templates_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    real_policies()  # expanded (or read) once
    iam_policies._transformed.cache_clear()

    def no_translation(*_: Any, **__: Any) -> Any:
        raise AssertionError("translated again: the cache in .local/iam/ was not used")

    monkeypatch.setattr(subprocess, "run", no_translation)
    assert function_policies(TEMPLATE, NAMES) == real_policies()


# --- the real template ---


@cache
def real_policies() -> dict[str, list[Statement]]:
    return function_policies(TEMPLATE, NAMES)


def can(function: str, service: str, operation: str, **params: Any) -> bool:
    return permitted(real_policies()[function], service, operation, **params)


def test_every_function_of_the_template_has_its_policies() -> None:
    assert set(real_policies()) == set(Stack(load()).functions())
    for function, statements in real_policies().items():
        assert any(s.policy == "AWSLambdaBasicExecutionRole" for s in statements), function
        assert all("{" not in r and "Ref" not in r for s in statements for r in s.resources), function  # all resolved


def test_the_feed_reads_the_main_table_and_checks_keys_but_writes_nothing_and_never_sees_the_ledger() -> None:
    feed = "BrainFeedFunction"
    assert can(feed, "dynamodb", "GetItem", TableName=KEYS, Key={})
    assert can(feed, "dynamodb", "UpdateItem", TableName=RATES, Key={})
    assert can(feed, "dynamodb", "Query", TableName=MAIN, KeyConditionExpression="pk = :pk")
    assert can(feed, "dynamodb", "GetItem", TableName=MAIN, Key={})
    # Exactly what it needs (issue 20): no index, no batch, no scan, as SAM's DynamoDBReadPolicy would have granted.
    assert not can(feed, "dynamodb", "Query", TableName=MAIN, IndexName="gsi1", KeyConditionExpression="pk = :pk")
    assert not can(feed, "dynamodb", "BatchGetItem", RequestItems={MAIN: {"Keys": []}})
    assert not can(feed, "dynamodb", "Scan", TableName=MAIN)
    assert not can(feed, "dynamodb", "PutItem", TableName=MAIN, Item={})
    assert not can(feed, "dynamodb", "UpdateItem", TableName=MAIN, Key={})
    assert not can(feed, "dynamodb", "GetItem", TableName=LEDGER, Key={})
    assert not can(feed, "dynamodb", "BatchGetItem", RequestItems={MAIN: {"Keys": []}, LEDGER: {"Keys": []}})
    assert not can(feed, "s3", "GetObject", Bucket=BUCKET, Key="workspaces/w1/projects/p.json")


def test_r2_reads_workspace_objects_with_the_media_secret_and_nothing_else() -> None:
    r2 = "BrainR2Function"
    assert can(r2, "s3", "GetObject", Bucket=BUCKET, Key="workspaces/w1/public/a.png", Range="bytes=0-")
    assert can(r2, "s3", "HeadObject", Bucket=BUCKET, Key="workspaces/w1/media/v.mp4", IfNoneMatch='"e"')
    assert can(r2, "secretsmanager", "GetSecretValue", SecretId=NAMES["MediaUrlSecret"])
    assert can(r2, "dynamodb", "Query", TableName=KEYS, IndexName="byId", KeyConditionExpression="id = :id")
    assert not can(r2, "secretsmanager", "GetSecretValue", SecretId=NAMES["PortalJwtSecret"])
    assert not can(r2, "s3", "GetObject", Bucket=BUCKET, Key="outside/a.png")
    assert not can(r2, "s3", "PutObject", Bucket=BUCKET, Key="workspaces/w1/public/a.png")
    assert not can(r2, "s3", "ListObjectsV2", Bucket=BUCKET, Prefix="workspaces/")
    assert not can(r2, "dynamodb", "Query", TableName=KEYS, KeyConditionExpression="pk = :pk")  # the table itself


def _write(kind: str, table_name: str) -> dict[str, Any]:
    return {kind: {"TableName": table_name, "Key" if kind != "Put" else "Item": {}}}


def test_post_create_writes_its_transaction_but_a_condition_check_needs_what_post_update_has() -> None:
    create, update = "PortalPostCreateFunction", "PortalPostUpdateFunction"
    writes = [_write("Put", MAIN), _write("Put", MAIN), _write("Update", MAIN), _write("Delete", MAIN)]
    assert can(create, "secretsmanager", "GetSecretValue", SecretId=NAMES["PortalJwtSecret"])
    assert can(create, "dynamodb", "GetItem", TableName=MAIN, Key={})
    assert can(create, "dynamodb", "BatchGetItem", RequestItems={MAIN: {"Keys": []}})
    assert can(create, "dynamodb", "TransactWriteItems", TransactItems=writes)
    assert can(create, "s3", "GetObject", Bucket=BUCKET, Key="workspaces/w1/projects/p/cover.png")
    checked = [*writes, _write("ConditionCheck", MAIN)]
    assert not can(create, "dynamodb", "TransactWriteItems", TransactItems=checked)
    assert can(update, "dynamodb", "TransactWriteItems", TransactItems=checked)
    assert not can(create, "dynamodb", "TransactWriteItems", TransactItems=[_write("Put", LEDGER)])
    assert not can(create, "s3", "PutObject", Bucket=BUCKET, Key="workspaces/w1/projects/p/cover.png")
    assert not can(create, "secretsmanager", "GetSecretValue", SecretId=NAMES["MediaUrlSecret"])


def test_the_purge_worker_deletes_a_workspaces_records_and_versions_and_nothing_it_should_not() -> None:
    purge = "WorkspacePurgeFunction"
    prefix = "workspaces/w1/"
    versions = {
        "Objects": [{"Key": prefix + "projects/a", "VersionId": "v1"}, {"Key": prefix + "x", "VersionId": "v2"}]
    }
    assert can(purge, "dynamodb", "Query", TableName=MAIN, KeyConditionExpression="pk = :pk")
    assert can(purge, "dynamodb", "BatchWriteItem", RequestItems={MAIN: [{}], KEYS: [{}]})
    assert can(purge, "dynamodb", "Query", TableName=KEYS, IndexName="byWorkspace", KeyConditionExpression="w = :w")
    assert can(purge, "s3", "ListObjectVersions", Bucket=BUCKET, Prefix=prefix, MaxKeys=1000)
    assert can(purge, "s3", "DeleteObjects", Bucket=BUCKET, Delete=versions)
    assert can(purge, "sqs", "SendMessage", QueueUrl=QUEUE_URL, MessageBody="{}", DelaySeconds=900)
    assert can(purge, "sqs", "DeleteMessage", QueueUrl=QUEUE_URL, ReceiptHandle="r")  # Lambda's poller, by its role
    assert not can(purge, "dynamodb", "DeleteItem", TableName=MAIN, Key={})
    assert not can(purge, "dynamodb", "TransactWriteItems", TransactItems=[_write("Delete", MAIN)])
    # The ledger and the rate-limits table: under a condition on the leading keys, the workspace's usage days and its
    # keys' window items only, never an account's ledger nor another limiter's counters.
    days = [{"DeleteRequest": {"Key": {"pk": s("USAGE#w1"), "sk": s(f"2024-01-0{d}")}}} for d in (1, 2)]
    account = {"DeleteRequest": {"Key": {"pk": s("ACCT#u1"), "sk": s("BALANCE")}}}
    assert can(purge, "dynamodb", "BatchWriteItem", RequestItems={LEDGER: days})
    assert not can(purge, "dynamodb", "BatchWriteItem", RequestItems={LEDGER: [*days, account]})
    usage = {"KeyConditionExpression": "pk = :pk", "ProjectionExpression": "pk, sk"}
    assert can(purge, "dynamodb", "Query", TableName=LEDGER, **usage, ExpressionAttributeValues={":pk": s("USAGE#w1")})
    assert not can(purge, "dynamodb", "Query", TableName=LEDGER, **usage,
                   ExpressionAttributeValues={":pk": s("ACCT#u1")})  # fmt: skip
    windows = [{"DeleteRequest": {"Key": {"pk": s(f"key#k1{shard}")}}} for shard in ("", "#shard1")]
    assert can(purge, "dynamodb", "BatchWriteItem", RequestItems={RATES: windows})
    mail = {"DeleteRequest": {"Key": {"pk": s("mail-to#ab12")}}}
    assert not can(purge, "dynamodb", "BatchWriteItem", RequestItems={RATES: [*windows, mail]})
    assert not can(purge, "dynamodb", "Scan", TableName=LEDGER)
    # The stored turns' TTLs after a retention change: the agents' conversations partitions only.
    turn = {"pk": s("AGENT#a1#CONVERSATIONS"), "sk": s("TURN#t1")}
    assert can(purge, "dynamodb", "UpdateItem", TableName=MAIN, Key=turn, UpdateExpression="SET expiresAt = :e")
    # A finished pass notes retentionAppliedAt on the workspace item (conversations.retention.applied, issue 42):
    # the workspaces' partitions, and no user's, session's or key's.
    assert can(purge, "dynamodb", "UpdateItem", TableName=MAIN, Key={"pk": s("WS#w1"), "sk": s("WS")})
    assert not can(purge, "dynamodb", "UpdateItem", TableName=MAIN, Key={"pk": s("USER#u1"), "sk": s("USER")})
    assert not can(purge, "dynamodb", "DeleteItem", TableName=LEDGER, Key={"pk": s("USAGE#w1")})
    assert not can(purge, "s3", "DeleteObjects", Bucket=BUCKET, Delete={"Objects": [{"Key": "elsewhere/a"}]})
    # A "Permanently Deleted" notification says nothing of what the key holds now: the worker asks S3 (HeadObject,
    # which IAM grants as GetObject), under the workspaces' prefix only (decisions.md, "Storage is a kept counter").
    assert can(purge, "s3", "GetObject", Bucket=BUCKET, Key=prefix + "projects/a")
    assert not can(purge, "s3", "GetObject", Bucket=BUCKET, Key="elsewhere/a")


def test_the_invite_function_reads_and_counts_its_mail_limits_and_no_other_partition() -> None:
    """Its rate-limits grant holds for invite-* items only: a read of another partition of the same table (a magic
    link's counter, an API key's window) is refused, as AWS refuses it."""
    invite = "PortalInvitationCreateFunction"
    for counter in ("invite-ws#w1", "invite-pair#" + "cd" * 32, "invite-to#" + "ab" * 32):
        assert can(invite, "dynamodb", "GetItem", TableName=RATES, Key={"pk": s(counter)}, ConsistentRead=True)
        counted = {"Key": {"pk": s(counter)}, "UpdateExpression": "ADD n :one"}
        assert can(invite, "dynamodb", "UpdateItem", TableName=RATES, **counted)
    for elsewhere in ("USER#u1", "mail-to#ab12", "key#k1", "xinvite-ws#w1"):
        assert not can(invite, "dynamodb", "GetItem", TableName=RATES, Key={"pk": s(elsewhere)}), elsewhere
        assert not can(invite, "dynamodb", "UpdateItem", TableName=RATES, Key={"pk": s(elsewhere)}), elsewhere
    assert not can(invite, "dynamodb", "PutItem", TableName=RATES, Item={"pk": s("invite-ws#w1")})  # not granted


@pytest.mark.parametrize("function", ["PortalKeyUsageFunction", "PortalAgentUsageFunction"])
def test_the_usage_endpoints_query_a_workspaces_usage_and_never_an_accounts_ledger(function: str) -> None:
    days = {"KeyConditionExpression": "pk = :pk AND sk BETWEEN :first AND :last"}
    values = {":first": s("2024-01-01"), ":last": s("2024-01-31")}
    assert can(function, "dynamodb", "Query", TableName=LEDGER, **days,
               ExpressionAttributeValues=values | {":pk": s("USAGE#w1")})  # fmt: skip
    assert not can(function, "dynamodb", "Query", TableName=LEDGER, **days,
                   ExpressionAttributeValues=values | {":pk": s("ACCT#u1")})  # fmt: skip
    assert not can(function, "dynamodb", "Scan", TableName=LEDGER)


def _touching(operation: str, name: str, partition: str) -> dict[str, Any]:
    """A call of ``operation`` on table ``name`` that reads or writes the one partition ``partition``."""
    key = {"pk": s(partition)}
    if operation == "Query":
        values = {":pk": key["pk"]}
        return {"TableName": name, "KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": values}
    if operation == "BatchWriteItem":
        return {"RequestItems": {name: [{"DeleteRequest": {"Key": key}}]}}
    if operation == "BatchGetItem":
        return {"RequestItems": {name: {"Keys": [key]}}}
    return {"TableName": name, "Item" if operation == "PutItem" else "Key": key}


def _call(operation: str) -> str:
    """The API call that needs ``operation``: a condition check exists only inside a transaction."""
    return "TransactWriteItems" if operation == "ConditionCheckItem" else operation


def _args(operation: str, name: str, partition: str) -> dict[str, Any]:
    if operation != "ConditionCheckItem":
        return _touching(operation, name, partition)
    check = {"TableName": name, "Key": {"pk": s(partition)}, "ConditionExpression": "attribute_exists(pk)"}
    return {"TransactItems": [{"ConditionCheck": check}]}


def test_every_leading_keys_grant_of_the_template_allows_its_partitions_and_refuses_others() -> None:
    """The template's twenty grants on leading keys (the preview's count, the history numberer's and the storage
    counter's among them):
    each allows a partition its patterns name and refuses any other."""
    conditioned = [(f, st) for f, sts in real_policies().items() for st in sts if "LeadingKeys" in st.condition]
    assert len(conditioned) == 20, conditioned
    for function, statement in conditioned:
        patterns = json.loads(statement.condition)["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
        name = statement.resources[0].rsplit("/", 1)[-1]
        for action, pattern in ((a, p) for a in statement.actions for p in patterns):  # a grant may name several
            operation = action.split(":")[1]
            assert can(function, "dynamodb", _call(operation), **_args(operation, name, pattern.replace("*", "x1")))
            assert not can(function, "dynamodb", _call(operation), **_args(operation, name, "NOT#" + pattern)), action


def test_chat_may_invoke_only_its_parameters_model() -> None:
    chat = "BrainChatFunction"
    model = load()["Parameters"]["ChatModelId"]["Default"]
    assert can(chat, "bedrock-runtime", "ConverseStream", modelId=model, messages=[])
    assert not can(chat, "bedrock-runtime", "ConverseStream", modelId="anthropic.claude-3-opus-20240229-v1:0")
    assert not can(chat, "bedrock-runtime", "Converse", modelId=model, messages=[])  # InvokeModel: not granted
    # Stored turns are table items now: the chat writes nothing to, and reads nothing of, the bucket's conversations.
    key = "workspaces/w1/conversations/a1/c/t1.json"
    assert not can(chat, "s3", "PutObject", Bucket=BUCKET, Key=key) and not can(chat, "s3", "GetObject", Bucket=BUCKET,
                                                                                 Key=key)  # fmt: skip
    assert not can(chat, "s3", "GetObject", Bucket=BUCKET, Key="workspaces/w1/projects/p.json")


def test_a_parameter_given_in_resources_overrides_its_default() -> None:
    other = "amazon.nova-pro-v1:0"
    chat = function_policies(TEMPLATE, NAMES | {"ChatModelId": other})["BrainChatFunction"]
    assert permitted(chat, "bedrock-runtime", "ConverseStream", modelId=other, messages=[])


@pytest.mark.parametrize("function", ["BrainChatFunction", "PortalAgentPreviewFunction"])
def test_the_other_bedrock_models_of_the_catalogue_are_granted_only_when_listed(function: str) -> None:
    """ChatModels may name several Bedrock models: ChatBedrockModelIds grants them, each by its own ARN."""
    default, pro, lite = "amazon.nova-lite-v1:0", "amazon.nova-pro-v1:0", "amazon.nova-micro-v1:0"
    listed = function_policies(TEMPLATE, NAMES | {"ChatBedrockModelIds": f"{pro},{lite}"})[function]
    for model in (default, pro, lite):
        assert permitted(listed, "bedrock-runtime", "ConverseStream", modelId=model, messages=[]), model
    assert not permitted(listed, "bedrock-runtime", "ConverseStream", modelId="amazon.nova-premier-v1:0", messages=[])
    unlisted = real_policies()[function]  # the parameter's default: ChatModelId alone
    assert permitted(unlisted, "bedrock-runtime", "ConverseStream", modelId=default, messages=[])
    assert not permitted(unlisted, "bedrock-runtime", "ConverseStream", modelId=pro, messages=[])


def test_an_unresolvable_resource_is_an_error_not_a_wildcard() -> None:
    with pytest.raises(KeyError, match="MainTable"):
        function_policies(TEMPLATE, {k: v for k, v in NAMES.items() if k != "MainTable"})


def _portal_routes() -> dict[str, list[str]]:
    """Each portal function's paths on the portal API (template.yaml's events)."""
    routes: dict[str, list[str]] = {}
    for name, resource in load()["Resources"].items():
        for event in (resource.get("Properties", {}).get("Events") or {}).values():
            props = event.get("Properties", {})
            if event.get("Type") == "Api" and props.get("RestApiId") == {"Ref": "PortalApi"}:
                routes.setdefault(name, []).append(props["Path"])
    return routes


def test_every_function_of_a_workspace_route_may_run_the_access_check() -> None:
    """WorkspaceStore.access reads the membership, the workspace (and the user, the agent) in one BatchGetItem:
    a function of a ``{workspaceId}`` route without it answers AccessDenied on its first request in AWS. Found by
    running the integration suite through this evaluator: six such functions (workspace get and delete, keys list,
    mint and revoke, brands list) had only the session policy's GetItem. (The fallback function, on every path,
    answers without reading.)"""
    routes = _portal_routes()
    scoped = sorted(f for f, paths in routes.items() if any("{workspaceId}" in p for p in paths) and len(paths) == 1)
    assert len(scoped) > 30, scoped
    denied = [f for f in scoped if not can(f, "dynamodb", "BatchGetItem", RequestItems={MAIN: {"Keys": []}})]
    assert denied == []


def test_the_webhook_worker_reads_and_writes_webhooks_deliveries_and_audit_entries_only() -> None:
    """WebhookDeliveryFunction (issue 42): a delivery and its webhook read together and updated, a disabling's audit
    entry put, its own queue sent to; no other partition, table, action, bucket or queue."""
    worker = "WebhookDeliveryFunction"
    delivery = {"pk": s("WEBHOOK#whk1#DELIVERIES"), "sk": s("DLV#dlv1")}
    webhook = {"pk": s("WS#w1"), "sk": s("WEBHOOK#whk1")}
    own = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/{NAMES['WebhookDeliveryQueue']}"
    assert can(worker, "dynamodb", "BatchGetItem", RequestItems={MAIN: {"Keys": [delivery, webhook]}})
    assert can(worker, "dynamodb", "UpdateItem", TableName=MAIN, Key=delivery)
    assert can(worker, "dynamodb", "UpdateItem", TableName=MAIN, Key=webhook)
    assert can(worker, "dynamodb", "PutItem", TableName=MAIN, Item={"pk": s("AUDIT#w1"), "sk": s("2026#aud1")})
    assert can(worker, "sqs", "SendMessage", QueueUrl=own, MessageBody="{}", DelaySeconds=900)
    assert not can(worker, "dynamodb", "PutItem", TableName=MAIN, Item=webhook)  # no webhook or delivery made
    assert not can(worker, "dynamodb", "UpdateItem", TableName=MAIN, Key={"pk": s("AUDIT#w1"), "sk": s("x")})
    assert not can(worker, "dynamodb", "UpdateItem", TableName=MAIN, Key={"pk": s("AGENT#a1#TURNS"), "sk": s("x")})
    profile = {"pk": s("USER#u1"), "sk": s("PROFILE")}
    assert not can(worker, "dynamodb", "BatchGetItem", RequestItems={MAIN: {"Keys": [profile]}})
    assert not can(worker, "dynamodb", "DeleteItem", TableName=MAIN, Key=delivery)
    assert not can(worker, "dynamodb", "Query", TableName=MAIN, KeyConditionExpression="pk = :p")
    assert not can(worker, "dynamodb", "GetItem", TableName=KEYS, Key={"keyHash": s("h")})
    assert not can(worker, "s3", "GetObject", Bucket=BUCKET, Key="workspaces/w1/projects/p.json")
    assert not can(worker, "sqs", "SendMessage", QueueUrl=QUEUE_URL, MessageBody="{}")  # the purge queue


def test_the_history_numberer_reads_and_writes_accounts_partitions_only() -> None:
    """LedgerHistoryFunction (issue 43): an account's HISTORY item and balance read together, its books Queried, its
    history rows put and its entries' ``n`` set (one transaction); never a workspace's usage days, another table, a
    deletion or a Scan."""
    numberer = "LedgerHistoryFunction"
    head = [{"pk": s("ACCT#u1"), "sk": s("HISTORY")}, {"pk": s("ACCT#u1"), "sk": s("BALANCE")}]
    assert can(numberer, "dynamodb", "BatchGetItem", RequestItems={LEDGER: {"Keys": head}})
    for book in ("ACCT#u1", "ACCT#u1#S3"):
        assert can(numberer, "dynamodb", "Query", TableName=LEDGER, KeyConditionExpression="pk = :pk",
                   ExpressionAttributeValues={":pk": s(book)})  # fmt: skip
        assert can(numberer, "dynamodb", "UpdateItem", TableName=LEDGER, Key={"pk": s(book), "sk": s("ENTRY#t#led1")})
    for row in ("ACCT#u1#H3", "ACCT#u1#T#llm#15"):
        assert can(numberer, "dynamodb", "PutItem", TableName=LEDGER, Item={"pk": s(row), "sk": s("N#000000000301")})
    usage = {"pk": s("USAGE#w1"), "sk": s("2026-01-01")}
    assert not can(numberer, "dynamodb", "UpdateItem", TableName=LEDGER, Key=usage)
    assert not can(numberer, "dynamodb", "BatchGetItem", RequestItems={LEDGER: {"Keys": [usage]}})
    assert not can(numberer, "dynamodb", "DeleteItem", TableName=LEDGER, Key=head[0])
    assert not can(numberer, "dynamodb", "Scan", TableName=LEDGER)
    assert not can(numberer, "dynamodb", "GetItem", TableName=MAIN, Key={"pk": s("WS#w1"), "sk": s("WS")})
