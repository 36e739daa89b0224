"""The suites run every function under its own IAM policy (tests/support/iam_check.py): a permission taken out of
template.yaml fails them, in-process and through the runner, even where the handler hides AWS's answer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from stack.template import ACCOUNT_ID, ROOT, TEMPLATE
from tests.support.iam_check import PolicyCheck, dump_policies, load_policies
from tests.support.iam_eval import Statement
from tests.support.iam_plugin import without
from tests.support.iam_policies import emulated_resources, function_policies, partition_keys

TABLE = f"arn:aws:dynamodb:us-east-1:{ACCOUNT_ID}:table/main"
READ = Statement("Allow", ("dynamodb:GetItem", "dynamodb:Query"), (TABLE, f"{TABLE}/index/*"), policy="Read")


def a_check() -> PolicyCheck:
    return PolicyCheck({"Reader": [READ]}, "us-east-1", ACCOUNT_ID, test="t::one")


def test_a_call_the_policy_allows_names_the_grant_it_used_and_the_test() -> None:
    check = a_check()
    check.judge("Reader", "dynamodb", "Query", {"TableName": "main", "IndexName": "byEmail"})
    assert check.taken_violations() == []
    assert check.used == {("Reader", "dynamodb:Query", f"{TABLE}/index/*"): "t::one"}


def test_a_call_outside_the_policy_is_recorded_not_raised() -> None:
    check = a_check()
    check.judge("Reader", "dynamodb", "TransactWriteItems", {"TransactItems": [{"Put": {"TableName": "main"}}]})
    check.judge("Stranger", "dynamodb", "GetItem", {"TableName": "main"})
    check.judge("Reader", "kinesis", "PutRecord", {})
    assert check.taken_violations() == [
        f"Reader may not dynamodb:PutItem on {TABLE} (dynamodb.TransactWriteItems)",
        "Stranger: no such function in template.yaml (dynamodb.GetItem)",
        "Reader: kinesis.PutRecord: which IAM action and resource AWS checks is not known here",
    ]
    assert check.used == {}


def test_a_call_outside_a_grants_partitions_is_a_violation_naming_the_partition() -> None:
    """The check the suites run (tests/support/iam_plugin.py): the invite function's real policy, its rate-limits grant
    held to invite-* items; a read of a user's partition of that table is denied, its own partition allowed."""
    names = emulated_resources()
    rates = names["RateLimitsTable"]
    invite = "PortalInvitationCreateFunction"
    check = PolicyCheck({invite: function_policies(TEMPLATE, names)[invite]}, "us-east-1", ACCOUNT_ID, test="t::one",
                        partition_keys=partition_keys(TEMPLATE, names))  # fmt: skip
    check.judge(invite, "dynamodb", "GetItem", {"TableName": rates, "Key": {"pk": {"S": "invite-ws#w1"}}})
    assert check.taken_violations() == []
    check.judge(invite, "dynamodb", "GetItem", {"TableName": rates, "Key": {"pk": {"S": "USER#u1"}}})
    table = f"arn:aws:dynamodb:us-east-1:{ACCOUNT_ID}:table/{rates}"
    assert check.taken_violations() == [
        f"{invite} may not dynamodb:GetItem on {table} [dynamodb:leadingkeys: USER#u1] (dynamodb.GetItem)"
    ]
    check.judge(invite, "dynamodb", "GetItem", {"TableName": rates, "Key": {"sk": {"S": "no partition key"}}})
    (unjudged,) = check.taken_violations()  # recorded, not raised, and never taken to hold
    assert unjudged.startswith(f"{invite}: dynamodb:GetItem on {table} (dynamodb.GetItem): condition not judged")


def test_removing_an_action_leaves_the_rest_of_the_statement() -> None:
    assert without(READ, "DynamoDB:Query").actions == ("dynamodb:GetItem",)
    assert without(READ, "s3:GetObject") is READ
    assert without(Statement("Allow", ("dynamodb:Query",), (TABLE,)), "dynamodb:Query").actions == ("none:Removed",)


def test_policies_cross_to_a_runners_workers_unchanged() -> None:
    conditioned = Statement("Deny", ("s3:*",), ("*",), not_resource=True, condition='{"Bool": {}}', policy="P")
    policies = {"Reader": [READ, conditioned]}
    assert load_policies(dump_policies(policies)) == policies


def suite(*tests: str, remove: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"IAM_CHECK_REMOVE": remove, "IAM_CHECK_USED": str(tmp_path)}  # not the whole run's record
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *tests]
    return subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_r2_without_get_object_fails_its_suite_though_the_test_itself_passes(tmp_path: Path) -> None:
    """moto serves the object either way, so the Range test passes; its calls were judged and fail it."""
    run = suite("tests/integration/brain/r2/test_ranges.py::test_an_unsatisfiable_range_is_416",
                remove="BrainR2Function=s3:GetObject", tmp_path=tmp_path)  # fmt: skip
    assert run.returncode == 1, run.stdout[-3000:]
    assert "3 passed, 3 errors" in run.stdout  # each case passed, each failed when it ended, run.stdout[-3000:]
    assert "BrainR2Function may not s3:GetObject on arn:aws:s3:::" in run.stdout


def test_a_function_behind_the_runner_without_its_permission_fails_the_e2e_suite(tmp_path: Path) -> None:
    test = "tests/e2e/test_read_plane_http.py::test_agent_metadata"
    run = suite(test, remove="BrainAgentFunction=dynamodb:Query", tmp_path=tmp_path)
    assert run.returncode == 1, run.stdout[-3000:]
    assert "the runner's functions made calls outside their IAM policy" in run.stdout, run.stdout[-3000:]
    assert "BrainAgentFunction may not dynamodb:Query on arn:aws:dynamodb:" in run.stdout
