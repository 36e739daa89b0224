"""SQS worker: S3's notifications of a workspace's objects, kept in its storage counter
(``core.objects.notifications``, routed here by StorageObjectEventsRule); purge deleted workspaces (objects under
their prefix, then their records) and deleted agents (their folder's objects, stored conversations, posts and
items); and re-stamp a workspace's stored turns after its retention changed (``"job": "restamp"``,
``core.chat.restamp``).

A pass that ran out of time queues a fresh message and the next pass resumes where
it stopped. A pass that failed is reported in ``batchItemFailures`` (``core.platform.sqs_batch``), so SQS
redelivers it; after ``maxReceiveCount`` failures it lands in the dead-letter queue.
"""

import json
import logging

from core.chat import providers as chat
from core.objects import providers as objects
from core.platform import jobs, observability
from core.platform.sqs_batch import Record, partial_response
from core.purge import providers as purge

logger = logging.getLogger("purge")


def purge_one(record: Record, lambda_context) -> None:
    try:
        message = json.loads(record["body"])
        if message.get("source") == "aws.s3":  # an object created or deleted: the storage counter follows it
            objects.notifications().apply(message)
            return
        workspace_id, agent_id = message["workspaceId"], message.get("agentId")
        remaining = lambda_context.get_remaining_time_in_millis
        if message.get("job") == jobs.RESTAMP:
            restamped = chat.restamper().restamp(workspace_id, remaining)
            logger.info("restamp pass", extra=restamped.__dict__)
            if not restamped.finished:
                jobs.restamp(workspace_id, delay_seconds=0)
            return
        service = purge.worker()
        if agent_id:
            result = service.purge_agent(workspace_id, agent_id, remaining)
        else:
            result = service.purge(workspace_id, remaining)
    except Exception:
        logger.exception("purge pass failed", extra={"messageId": record["messageId"]})
        raise  # partial_response reports the record in batchItemFailures
    logger.info("purge pass", extra={"workspaceId": workspace_id, **result.__dict__})
    if not result.finished:  # out of time (again now), or everything gone but the settle window (again after it)
        jobs.purge(workspace_id, agent_id, delay_seconds=result.again_in)


@observability.observed("workers", routed=("purge",))
def lambda_handler(event, context):
    return partial_response(event.get("Records") or [], lambda record: purge_one(record, context))
