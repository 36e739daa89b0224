"""SQS worker: read an agent's documents, posts and site again and index them (core.knowledge.worker).

Messages name an agent (from the writers) or are S3's notifications of new objects (a file replaced through a
presigned upload never passes the API). A rebuild that failed or ran out of time is reported in
``batchItemFailures`` (``core.platform.sqs_batch``) and retried by SQS; after ``maxReceiveCount`` attempts it
lands in the dead-letter queue, and the items it left ``pending`` are shown ``failed`` once that is stale.
A document that cannot be read is no failure of the message: its item is ``failed`` with the reason.
"""

import logging

from core.knowledge import providers as knowledge
from core.knowledge.queue import agents_named
from core.platform import observability
from core.platform.sqs_batch import Record, partial_response

logger = logging.getLogger("knowledge")


# The agents rebuilt in this invocation: every message of a batch was sent before the batch began, so one rebuild
# after it covers them all (a publisher's burst of item writes reads the agent once, not once per write).
rebuilt: set[tuple[str, str]] = set()


def index_one(record: Record, lambda_context) -> None:
    def time_left() -> float:
        return lambda_context.get_remaining_time_in_millis() / 1000

    for workspace_id, agent_id in sorted(agents_named(record["body"]) - rebuilt):
        try:
            done = knowledge.worker().rebuild(workspace_id, agent_id, time_left=time_left)
        except Exception:
            logger.exception("knowledge rebuild failed", extra={"messageId": record["messageId"], "agentId": agent_id})
            raise  # partial_response reports the record in batchItemFailures
        rebuilt.add((workspace_id, agent_id))
        logger.info("knowledge rebuild", extra={"workspaceId": workspace_id, **done.__dict__})


@observability.observed("workers", routed=("knowledge",))
def lambda_handler(event, context):
    rebuilt.clear()
    return partial_response(event.get("Records") or [], lambda record: index_one(record, context))
