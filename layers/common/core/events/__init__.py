"""Events: what a committed change of the tables means to an owner (docs/decisions.md, "Webhooks: one home for
events (DynamoDB Streams)").

Every change an owner may hear of is a change of MainTable or LedgerTable; their streams feed one function
(``functions/workers/events``), whichever path wrote it (API, worker, operator command). Nothing commits, nothing
streams: an event exists only for a committed change.

- ``catalogue.py``: the event types (the contract's and the extensions), ``*``
- ``records.py``: ``Event``, ``AccountChange``, the delivered body (≤ 20 kB) and the deterministic event id
- ``changes.py``: ``events_of(table, record)``: a stream record -> its events, PURE (the table of what maps to what)
- ``owners.py``: a batch's workspaces read once; the ledger's account changes routed to the owned workspaces
- ``store.py``: ``EventStore``, the reads (a workspace's item, an account's owned workspaces)
- ``providers.py``: ``store()``

The fan-out to webhooks is the webhooks package's (``core.webhooks.fanout``).
"""
