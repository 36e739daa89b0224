"""docs/security.md's table of every IAM grant of every function, each with the test that needed it or the reason
it is there without one.

    .venv/bin/python -m tests.support.iam_report      # after a whole `make test`: rewrites the table

A grant is one (action, resource) pattern pair of a function's policy as SAM expands template.yaml. "Needed" is
what ``tests/support/iam_plugin.py`` recorded in the last run: a call of that function that only this grant (or
another of the same statement) allowed. tests/unit/infra/test_iam_grants.py holds the table to the template.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from functools import cache

from stack.template import ROOT, TEMPLATE
from tests.support.iam_check import Grant
from tests.support.iam_eval import matches
from tests.support.iam_plugin import whole_run_used
from tests.support.iam_policies import emulated_resources, function_policies

DOC = ROOT / "docs" / "security.md"
BEGIN, END = "<!-- iam-grants:begin -->", "<!-- iam-grants:end -->"

# Grants no test can need, with the reason each is kept: (function, action, resource) patterns as IAM matches them
# (``*`` spans anything, actions ignore case), resources as the table shows them.
_PREFIXES = "r2's allowlist (core/paths.py) is one statement of prefixes; the tests write and read under some of them"
JUSTIFIED: dict[tuple[str, str, str], str] = {
    ("*", "logs:*", "*"): "Lambda's runtime writes the function's logs (AWSLambdaBasicExecutionRole)",
    ("*", "xray:*", "*"): "the X-Ray daemon sends traces (Tracing: Active, AWSXrayWriteOnlyAccess)",
    ("WorkspacePurgeFunction", "sqs:*", "*"): "Lambda's SQS event source polls and deletes the queue's messages "
    "(AWSLambdaSQSQueueExecutionRole); the function itself never calls SQS for them",
    ("KnowledgeIndexFunction", "sqs:*", "*"): "Lambda's SQS event source polls and deletes the queue's messages "
    "(AWSLambdaSQSQueueExecutionRole); the worker never calls SQS itself",
    ("WebhookDeliveryFunction", "sqs:*", "*"): "Lambda's SQS event source polls and deletes the queue's messages "
    "(AWSLambdaSQSQueueExecutionRole); the worker itself only sends its own queue its next attempts",
    ("EventsFunction", "dynamodb:*Stream*", "*"): "Lambda's DynamoDB Streams event source reads the tables' streams "
    "(AWSLambdaDynamoDBExecutionRole); the function is handed the records and never calls Streams itself",
    ("EventsFunction", "dynamodb:GetRecords", "*"): "Lambda's DynamoDB Streams event source reads the tables' streams "
    "(AWSLambdaDynamoDBExecutionRole); the function is handed the records and never calls Streams itself",
    ("EventsFunction", "dynamodb:GetShardIterator", "*"): "Lambda's DynamoDB Streams event source reads the tables' "
    "streams (AWSLambdaDynamoDBExecutionRole); the function is handed the records and never calls Streams itself",
    ("LedgerHistoryFunction", "dynamodb:*Stream*", "*"): "Lambda's DynamoDB Streams event source reads the ledger's "
    "stream (AWSLambdaDynamoDBExecutionRole); the numberer is handed the records and never calls Streams itself",
    ("LedgerHistoryFunction", "dynamodb:GetRecords", "*"): "Lambda's DynamoDB Streams event source reads the ledger's "
    "stream (AWSLambdaDynamoDBExecutionRole); the numberer is handed the records and never calls Streams itself",
    ("LedgerHistoryFunction", "dynamodb:GetShardIterator", "*"): "Lambda's DynamoDB Streams event source reads the "
    "ledger's stream (AWSLambdaDynamoDBExecutionRole); the numberer never calls Streams itself",
    ("PortalMagicLinkVerifyFunction", "dynamodb:BatchGetItem", "MainTable"): "used by the runner's tests in earlier "
    "whole runs (tests/attack/test_header_injection.py); a runner shared by tests attributes calls by run",
    ("Portal*", "secretsmanager:GetSecretValue", "PortalJwtSecret-*"): "every portal function verifies the portal "
    "JWT; a test process caches the secret across functions, so only the first function of a process fetches it",
    ("CreditHoldSweeperFunction", "dynamodb:ConditionCheckItem", "LedgerTable"): "LedgerBillingPolicy, shared with "
    "chat: the sweeper settles and releases holds through the same transactions, whose balance check it never hits",
    ("PortalAgentPreviewFunction", "bedrock:InvokeModelWithResponseStream", "*"): "the preview runs the agent's "
    "model as the chat does (the chat's Bedrock turn is tested, tests/integration/brain/chat/test_bedrock_turn.py); "
    "the suites preview on the offline models",
    ("PortalAgentPreviewFunction", "secretsmanager:GetSecretValue", "*/models/*"): "an OpenAI-compatible model's "
    "key, read as the chat reads it (tests/integration/brain/chat/test_openai_turn.py); the suites preview offline",
    ("PortalObject*", "s3:*", "ContentBucket/workspaces/*/*/*"): _PREFIXES,
    ("PortalUploadCreateFunction", "s3:PutObject", "ContentBucket/workspaces/*/*/*"): _PREFIXES,
}


def grants() -> Iterator[Grant]:
    """Every (function, action, resource) the template grants, resources named by their logical ids."""
    names = _logical_names()
    for function, statements in sorted(function_policies(TEMPLATE, emulated_resources()).items()):
        for statement in statements:
            if statement.effect == "Allow":
                for action in statement.actions:
                    for resource in statement.resources:
                        yield function, action, named(resource, names)


@cache
def _logical_names() -> list[tuple[str, str]]:
    return sorted(((physical, logical) for logical, physical in emulated_resources().items()), key=lambda p: -len(p[0]))


def named(resource: str, names: list[tuple[str, str]]) -> str:
    """``arn:aws:dynamodb:us-east-1:123456789012:table/local-maintable/index/*`` -> ``MainTable/index/*``."""
    for physical, logical in names:
        resource = re.sub(rf"(?<=[:/]){re.escape(physical)}(?=$|[/-])", logical, resource)
    return re.sub(r"^arn:aws:[a-z0-9-]+:[a-z0-9-]*:[0-9]*:(table/|secret:)?", "", resource)


def justification(function: str, action: str, resource: str) -> str | None:
    for (who, act, res), why in JUSTIFIED.items():
        if matches(who, function) and matches(act, action, ignore_case=True) and matches(res, resource):
            return why
    return None


def rows(used: dict[Grant, str]) -> list[str]:
    names = _logical_names()
    needed = {(f, a.lower(), named(r, names)): test for (f, a, r), test in used.items()}
    lines = ["| Function | Action | Resource | Needed by (or why it is kept) |", "|---|---|---|---|"]
    for function, action, resource in grants():
        test = needed.get((function, action.lower(), resource))
        why = f"`{test}`" if test else justification(function, action, resource) or "**unused: no test needed it**"
        lines.append(f"| {function} | `{action}` | `{resource}` | {why} |")
    return lines


def main() -> int:
    used = whole_run_used()
    if not used:
        print("no record of a run: run `make test` (or pytest) first", file=sys.stderr)
        return 1
    text = DOC.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    table = "\n".join(rows(used))
    DOC.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")
    unused = sum("**unused" in line for line in table.splitlines())
    print(f"{DOC.relative_to(ROOT)}: {len(table.splitlines()) - 2} grants, {unused} unused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
