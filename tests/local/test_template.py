"""stack.template: CloudFormation short tags, local physical names, function specs and API routes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stack.template import ACCOUNT_ID, ROOT, Route, Stack, load
from tests.support.lambdas import stack

SMALL = """
Parameters:
  StageName: {Type: String, Default: live}
  Limit: {Type: Number, Default: 600}
Globals:
  Function:
    Handler: handler.lambda_handler
    Timeout: 10
    MemorySize: 512
    Environment:
      Variables:
        TABLE: !Ref MainTable
        LIMIT: !Ref Limit
        SHARED: global
Resources:
  MainTable: {Type: AWS::DynamoDB::Table}
  Queue: {Type: AWS::SQS::Queue}
  Bucket: {Type: AWS::S3::Bucket}
  Api:
    Type: AWS::Serverless::Api
    Properties:
      Name: !Sub "${AWS::StackName}-api"
      Arn: !GetAtt Bucket.Arn
      ArnList: !GetAtt [Bucket, Arn]
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/x/
      MemorySize: 256
      Environment:
        Variables:
          SHARED: mine
          QUEUE: !Ref Queue
      Events:
        Get:
          Type: Api
          Properties:
            RestApiId: !Ref Api
            Path: /a/{id}
            Method: get
        Other:
          Type: Api
          Properties:
            RestApiId: !Ref OtherApi
            Path: /b
            Method: GET
        Timer:
          Type: Schedule
          Properties:
            Schedule: rate(1 minute)
"""


@pytest.fixture
def small(tmp_path: Path) -> Stack:
    path = tmp_path / "template.yaml"
    path.write_text(SMALL)
    return Stack(load(path), stack_name="Dev", region="eu-west-1")


def test_short_tags_are_parsed(small: Stack) -> None:
    api = small.resources["Api"]["Properties"]
    assert api["Name"] == {"Fn::Sub": "${AWS::StackName}-api"}
    assert api["Arn"] == {"Fn::GetAtt": ["Bucket", "Arn"]}
    assert api["ArnList"] == {"Fn::GetAtt": ["Bucket", "Arn"]}
    assert small.template["Globals"]["Function"]["Environment"]["Variables"]["TABLE"] == {"Ref": "MainTable"}


def test_physical_names_are_stack_prefixed_lower_case(small: Stack) -> None:
    assert small.physical_name("MainTable") == "dev-maintable"
    assert stack().physical_name("ApiKeysTable") == "local-apikeystable"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"Ref": "MainTable"}, "dev-maintable"),
        ({"Ref": "StageName"}, "live"),
        ({"Ref": "Limit"}, "600"),
        ({"Ref": "AWS::StackName"}, "Dev"),
        ({"Ref": "AWS::Region"}, "eu-west-1"),
        ({"Ref": "Queue"}, f"https://sqs.eu-west-1.amazonaws.com/{ACCOUNT_ID}/dev-queue"),
        ({"Fn::GetAtt": ["Bucket", "Arn"]}, "arn:aws:local:eu-west-1::dev-bucket"),
        ({"Fn::Sub": "${AWS::StackName}-api"}, "Dev-api"),
        ({"Fn::Sub": "'${StageName}' and ${MainTable}"}, "'live' and dev-maintable"),
        ({"Fn::Sub": "no variables"}, "no variables"),
        ("plain", "plain"),
        (3, 3),
        ({"A": {"Ref": "MainTable"}, "B": [{"Ref": "StageName"}, "x"]}, {"A": "dev-maintable", "B": ["live", "x"]}),
        ({"Variables": {"T": {"Ref": "MainTable"}}}, {"Variables": {"T": "dev-maintable"}}),
    ],
)
def test_resolve(small: Stack, value: Any, expected: Any) -> None:
    assert small.resolve(value) == expected


def test_sub_of_an_attribute_equals_getatt(small: Stack) -> None:
    assert small.resolve({"Fn::Sub": "${Bucket.Arn}/*"}) == small.resolve({"Fn::GetAtt": ["Bucket", "Arn"]}) + "/*"


def test_sub_with_a_variable_map(small: Stack) -> None:
    assert small.resolve({"Fn::Sub": ["${Name}-x", {"Name": "given"}]}) == "given-x"


def test_functions_merge_globals(small: Stack) -> None:
    spec = small.functions()["Fn"]
    assert spec.code_uri == ROOT / "functions/x/"
    assert (spec.handler, spec.timeout, spec.memory) == ("handler.lambda_handler", 10, 256)
    assert spec.environment == {
        "TABLE": "dev-maintable",
        "LIMIT": "600",
        "SHARED": "mine",
        "QUEUE": f"https://sqs.eu-west-1.amazonaws.com/{ACCOUNT_ID}/dev-queue",
    }


def test_routes_only_of_the_named_api(small: Stack) -> None:
    assert small.routes("Api") == [Route("Api", "/a/{id}", "GET", "Fn")]
    assert small.routes("OtherApi") == [Route("OtherApi", "/b", "GET", "Fn")]
    assert small.routes("Missing") == []


def test_api_properties_are_resolved(small: Stack) -> None:
    assert small.api_properties("Api")["Name"] == "Dev-api"


READ_ENDPOINTS = {
    "/v1/agent/_whoami": "BrainWhoAmIFunction",
    "/v1/agent/{agentId}": "BrainAgentFunction",
    "/v1/agent/{agentId}/feed": "BrainFeedFunction",
    "/v1/agent/{agentId}/items": "BrainItemsFunction",
    "/v1/agent/{agentId}/wrap": "BrainWrapFunction",
    "/v1/agent/{agentId}/site": "BrainSiteFunction",
    "/v1/agent/{agentId}/suggestions": "BrainSuggestionsFunction",
}


def test_brain_api_routes_each_read_endpoint_to_its_function() -> None:
    routes = stack().routes("BrainApi")
    gets = {r.path: r.function for r in routes if r.method == "GET"}
    for path, function in READ_ENDPOINTS.items():
        assert gets.get(path) == function, path
    anys = {r.path: r.function for r in routes if r.method == "ANY"}
    served = {r.path for r in routes if r.function != "BrainFallbackFunction"}
    posts = {"/v1/agent/{agentId}/chat", "/v1/agent/{agentId}/turns/{turnId}/feedback"}
    assert set(READ_ENDPOINTS) | posts | {"/v1/r2/{path+}", "/v1/r2", "/v1/media-urls"} == served
    assert anys == dict.fromkeys([*served, "/{proxy+}"], "BrainFallbackFunction")
    assert all(r.api == "BrainApi" for r in routes)


def test_real_function_specs() -> None:
    functions = stack().functions()
    feed, fallback = functions["BrainFeedFunction"], functions["BrainFallbackFunction"]
    assert (feed.handler, feed.timeout, feed.memory) == ("handler.lambda_handler", 10, 512)
    assert (feed.code_uri / "handler.py").is_file()
    assert feed.environment["MAIN_TABLE"] == "local-maintable"
    assert feed.environment["DEFAULT_KEY_RATE_LIMIT"] == "600"
    assert "API_PLANE" not in feed.environment
    assert (fallback.memory, fallback.environment["API_PLANE"]) == (256, "brain")
    assert functions["PortalFallbackFunction"].environment["API_PLANE"] == "portal"
    assert fallback.environment["MAIN_TABLE"] == feed.environment["MAIN_TABLE"]
