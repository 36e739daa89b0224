"""AWS for the local runner: moto's threaded server with the template's resources, and what sits in front of it.

- ``emulator``: moto's server, the template's tables (with their streams), bucket, queues and secrets created in it,
  DynamoDB made atomic per request (stream reads included), its reads fast and its stream records as DynamoDB's;
  ``item_rollback``: transactions that put back only the items (and stream records) they touched.
- ``state``: the kept state (``store``), every committed write journalled before its answer leaves (``capture``),
  and replayed into a fresh moto at start (``restore``).
- ``s3_post``: a browser-based upload (POST Object) checked as S3 checks it before moto may store it.
"""
