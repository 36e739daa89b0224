"""docs/security.md lists every grant of template.yaml, each with the test that needed it or the reason it is kept
(tests/support/iam_report.py writes the table from a whole run)."""

from __future__ import annotations

from tests.support.iam_report import BEGIN, DOC, END, grants, justification, named


def documented() -> dict[tuple[str, str, str], str]:
    table = DOC.read_text().partition(BEGIN)[2].partition(END)[0]
    found = {}
    for line in table.strip().splitlines()[2:]:
        function, action, resource, why = (cell.strip().strip("`") for cell in line.strip("|").split(" | "))
        found[(function, action, resource)] = why
    return found


def test_the_table_lists_exactly_the_templates_grants() -> None:
    listed, granted = set(documented()), set(grants())
    assert granted - listed == set(), "granted, not in docs/security.md: run python -m tests.support.iam_report"
    assert listed - granted == set(), "in docs/security.md, no longer granted: run python -m tests.support.iam_report"


def test_every_grant_was_needed_by_a_test_or_is_justified() -> None:
    unused = [grant for grant, why in documented().items() if why.startswith("**unused")]
    assert unused == [], "remove these grants from template.yaml, or justify them in iam_report.JUSTIFIED"


def test_runtime_grants_are_justified_and_resources_read_as_the_template_names_them() -> None:
    assert justification("BrainFeedFunction", "logs:PutLogEvents", "*")
    assert justification("BrainFeedFunction", "dynamodb:Scan", "MainTable") is None
    names = [("local-maintable", "MainTable"), ("local-content", "ContentBucket")]
    assert named("arn:aws:dynamodb:us-east-1:123:table/local-maintable/index/*", names) == "MainTable/index/*"
    assert named("arn:aws:s3:::local-content/workspaces/*", names) == "ContentBucket/workspaces/*"
