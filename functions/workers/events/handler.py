"""DynamoDB Streams consumer (MainTable and LedgerTable): each committed change -> its events -> one delivery per
interested webhook and its message (``core.events``, ``core.webhooks.fanout``).

Two event source mappings invoke it (template.yaml, ``EventsFunction``), their FilterCriteria passing only the
item kinds an event can come from. A record that fails (a throttled write, a lost message) is reported in
``batchItemFailures`` (Powertools' ``BatchProcessor``); Lambda hands the stream over again from the first failed
record, retrying until it succeeds (``MaximumRetryAttempts: -1``): an event is never dropped, and the fan-out's
conditional writes make the repeat write and send nothing twice.
"""

import logging

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from core.platform import observability
from core.platform.settings import get_settings
from core.webhooks import providers as webhooks

logger = logging.getLogger("events")
processor = BatchProcessor(event_type=EventType.DynamoDBStreams, raise_on_entire_batch_failure=False)


def table_of(stream_arn: str) -> str:
    """``arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`` -> which table: main or ledger."""
    name = stream_arn.split(":table/", 1)[-1].split("/", 1)[0]
    settings = get_settings()
    if name == settings.main_table:
        return "main"
    if name == settings.ledger_table:
        return "ledger"
    raise ValueError(f"a stream of no table this function reads: {name}")


def fan_out(record: DynamoDBRecord) -> None:
    try:
        tally = webhooks.fanout().record(table_of(record.event_source_arn or ""), record.raw_event)  # type: ignore[arg-type]
    except Exception:
        logger.exception("fan-out failed", extra={"eventID": record.event_id, "eventName": record.raw_event.get(
            "eventName")})  # fmt: skip
        raise  # reported in batchItemFailures: Lambda hands it over again
    if tally.events:
        logger.info("events", extra={"eventID": record.event_id, "types": tally.kinds, "written": tally.written,
                                     "resent": tally.resent, "dropped": tally.dropped})  # fmt: skip


@observability.observed("workers", routed=("events",))
def lambda_handler(event, context):
    if not event.get("Records"):
        return {"batchItemFailures": []}
    webhooks.fanout().begin()  # this batch's reads of workspaces and webhooks, none kept from the last
    return process_partial_response(event=event, record_handler=fan_out, processor=processor, context=context)
