"""core.platform.sqs_batch: each record handled on its own, those that raised reported for SQS to deliver again."""

from __future__ import annotations

from typing import Any

from core.platform.sqs_batch import partial_response


def _records(*ids: str) -> list[dict[str, Any]]:
    return [{"messageId": i, "body": f'{{"n": "{i}"}}'} for i in ids]


def test_the_records_that_raise_are_reported_the_others_handled_in_order() -> None:
    handled: list[str] = []

    def handle(record: Any) -> None:
        handled.append(record["messageId"])
        if record["messageId"] in {"b", "d"}:
            raise RuntimeError("this message only")

    answer = partial_response(_records("a", "b", "c", "d"), handle)
    assert handled == ["a", "b", "c", "d"]  # a failure does not stop the batch
    assert answer == {"batchItemFailures": [{"itemIdentifier": "b"}, {"itemIdentifier": "d"}]}


def test_a_batch_whose_every_record_failed_is_reported_not_raised() -> None:
    def handle(record: Any) -> None:
        raise ValueError(record["messageId"])

    assert partial_response(_records("a", "b"), handle) == {
        "batchItemFailures": [{"itemIdentifier": "a"}, {"itemIdentifier": "b"}]
    }


def test_an_empty_batch_reports_nothing() -> None:
    assert partial_response([], lambda record: None) == {"batchItemFailures": []}
