"""Scheduled: finish credit holds that outlived their work (the container that took them died).

A hold whose work had delivered (``streamed``) is settled, any other is released.
Every step is idempotent, so overlapping or repeated runs change nothing twice.
"""

import logging

from core.credits import providers as credits
from core.platform import observability

logger = logging.getLogger("hold_sweeper")


@observability.observed("workers", routed=("hold_sweeper",))
def lambda_handler(event, context):
    settled = released = 0
    while True:  # batch after batch, until none is left or the run is nearly out of time
        report = credits.billing().sweep()
        settled, released = settled + report.settled, released + report.released
        if not report.more or context.get_remaining_time_in_millis() < 30_000:
            break
    logger.info("expired holds finished", extra={"settled": settled, "released": released})
    return {"settled": settled, "released": released}
