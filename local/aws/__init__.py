"""AWS for the local runner: moto's threaded server with the template's resources, and what sits in front of it.

- ``emulator``: moto's server, the template's tables, bucket, queues and secrets created in it, DynamoDB made
  atomic per request and its reads fast; ``item_rollback``: transactions that put back only the items they touched.
- ``state``: the kept state (``store``), every committed write journalled before its answer leaves (``capture``),
  and replayed into a fresh moto at start (``restore``).
- ``s3_post``: a browser-based upload (POST Object) checked as S3 checks it before moto may store it.
"""
