"""template.yaml's alarms, topic and dashboard: every function, API and table is watched, and only this stack's."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from core.platform.observability.catalogue import MODEL_ERROR_CODES
from stack.template import load

TEMPLATE = load()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
ALARMS = {name: r["Properties"] for name, r in RESOURCES.items() if r["Type"] == "AWS::CloudWatch::Alarm"}
FUNCTIONS = [name for name, r in RESOURCES.items() if r["Type"] == "AWS::Serverless::Function"]
TABLES = [name for name, r in RESOURCES.items() if r["Type"] == "AWS::DynamoDB::Table"]


def watched(metric: str, namespace: str) -> list[Any]:
    """Every dimension value an alarm watches ``metric`` of ``namespace`` for."""
    found: list[Any] = []
    for alarm in ALARMS.values():
        stats = [m["MetricStat"]["Metric"] for m in alarm.get("Metrics", []) if "MetricStat" in m]
        if "MetricName" in alarm:
            stats.append(alarm)
        for stat in stats:
            if (stat["Namespace"], stat["MetricName"]) == (namespace, metric):
                found.extend(d["Value"] for d in stat["Dimensions"])
    return found


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_every_function_of_the_stack_has_its_errors_and_throttles_watched(metric: str) -> None:
    watched_functions = [v["Ref"] for v in watched(metric, "AWS/Lambda")]
    assert sorted(watched_functions) == sorted(FUNCTIONS)  # each once, none left out, no other stack's


def test_every_table_has_its_throttled_reads_and_writes_watched() -> None:
    for metric in ("ReadThrottleEvents", "WriteThrottleEvents"):
        assert sorted(v["Ref"] for v in watched(metric, "AWS/DynamoDB")) == sorted(TABLES)


def test_each_apis_5xx_rate_is_watched_by_name_and_stage() -> None:
    names = [RESOURCES[api]["Properties"]["Name"] for api in ("BrainApi", "PortalApi")]
    assert [v for v in watched("5XXError", "AWS/ApiGateway") if "Fn::Sub" in v] == names
    assert [v for v in watched("5XXError", "AWS/ApiGateway") if "Ref" in v] == [{"Ref": "StageName"}] * 2


def test_the_dead_letter_queues_and_every_model_error_code_are_watched() -> None:
    assert watched("ApproximateNumberOfMessagesVisible", "AWS/SQS") == [
        {"Fn::GetAtt": ["PurgeDeadLetterQueue", "QueueName"]},
        {"Fn::GetAtt": ["KnowledgeDeadLetterQueue", "QueueName"]},
        {"Fn::GetAtt": ["WebhookDeliveryDeadLetterQueue", "QueueName"]},
    ]
    codes = {v for v in watched("ModelErrors", "WorkspaceService") if v != "workspace-service-brain"}
    assert codes == MODEL_ERROR_CODES | {"other"}


@pytest.mark.parametrize("name", sorted(ALARMS))
def test_each_alarm_notifies_the_topic_both_ways_and_ignores_missing_data(name: str) -> None:
    alarm = ALARMS[name]
    assert alarm["AlarmActions"] == alarm["OKActions"] == [{"Ref": "AlarmTopic"}]
    assert alarm["TreatMissingData"] == "notBreaching"
    assert len(alarm.get("Metrics", [])) <= 11  # CloudWatch: at most 10 metrics, plus the expression
    expressions = [m for m in alarm.get("Metrics", []) if "Expression" in m]
    assert [m["ReturnData"] for m in expressions] == [True] * len(expressions)


def test_the_topic_is_encrypted_with_a_key_cloudwatch_may_use_and_mail_subscribes_only_when_given() -> None:
    assert RESOURCES["AlarmTopic"]["Properties"]["KmsMasterKeyId"] == {"Ref": "AlarmTopicKey"}
    key = RESOURCES["AlarmTopicKey"]["Properties"]
    assert key["EnableKeyRotation"] is True
    principals = [s["Principal"] for s in key["KeyPolicy"]["Statement"]]
    assert {"Service": "cloudwatch.amazonaws.com"} in principals
    assert RESOURCES["AlarmEmailSubscription"]["Condition"] == "HasAlarmEmail"
    assert TEMPLATE["Parameters"]["AlarmEmail"]["Default"] == ""


def test_the_dashboard_body_is_json_with_the_headline_metrics() -> None:
    body = RESOURCES["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    document = json.loads(re.sub(r"\$\{[^}]+\}", "x", body))
    metrics = {row[1] for widget in document["widgets"] for row in widget["properties"]["metrics"]}
    assert {"Count", "4XXError", "5XXError", "Latency", "ChatTurns", "CreditsCharged", "R2BytesStreamed"} <= metrics
    assert {"Throttled", "ApproximateNumberOfMessagesVisible"} <= metrics


def test_functions_log_and_meter_through_powertools_settings() -> None:
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == "WorkspaceService"
    assert variables["POWERTOOLS_LOG_LEVEL"] == {"Ref": "LogLevel"}
    assert TEMPLATE["Globals"]["Function"]["LoggingConfig"]["ApplicationLogLevel"] == {"Ref": "LogLevel"}
