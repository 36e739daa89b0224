"""SQS worker: purge deleted workspaces (objects under their prefix, then their records).

A pass that ran out of time queues a fresh message and the next pass resumes where
it stopped. A pass that failed is reported in ``batchItemFailures``, so SQS
redelivers it; after ``maxReceiveCount`` failures it lands in the dead-letter queue.
"""

import json
import logging

from core import deps, observability

logger = logging.getLogger("purge")


@observability.observed("workers", routed=("purge",))
def lambda_handler(event, context):
    failures = []
    for record in event.get("Records", []):
        try:
            workspace_id = json.loads(record["body"])["workspaceId"]
            result = deps.purge().purge(workspace_id, context.get_remaining_time_in_millis)
        except Exception:
            logger.exception("purge pass failed", extra={"messageId": record.get("messageId")})
            failures.append({"itemIdentifier": record["messageId"]})
            continue
        logger.info("purge pass", extra={"workspaceId": workspace_id, **result.__dict__})
        if not result.finished:
            deps.enqueue_purge(workspace_id)
    return {"batchItemFailures": failures}
