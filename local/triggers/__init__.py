"""What invokes a function besides an HTTP request: ``queues`` (SQS event source mappings, polled), ``streams``
(DynamoDB stream event source mappings, polled) and ``schedules`` (``Schedule``/``ScheduleV2`` events, run on their
rate)."""
