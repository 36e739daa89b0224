"""Webhooks: events sent to the owner's systems as Standard Webhooks (authoring.md, "Webhooks: events sent to the
owner's systems").

- ``writer.py``: ``WebhookService`` — list, create, update, delete, rotate, test, deliveries, retry (the portal's
  routes); ``write_store.py``: ``WebhookStore`` (the webhooks and their count on the workspace item, a webhook's
  deliveries a page at a time, a delivery's retry)
- ``signing.py``: the secrets (``whsec_…``) and the ``webhook-signature`` header of Standard Webhooks
- ``addresses.py``: the SSRF checks (a URL when saved, an address at each delivery)
- ``queue.py``: the delivery queue's adapter (a delivery's message)
- ``delivery.py``: ``DeliveryWorker`` — one message, at most one attempt: the schedule, the waits made of SQS hops,
  410 and eight days of failures disabling; ``delivery_store.py``: ``DeliveryStore`` (a delivery and its webhook
  read together, an attempt recorded once); ``sender.py``: ``HttpSender`` (the POST to the vetted address: 15 s,
  no redirects, 1 KB read)
- ``records.py``, ``writer_models.py``; ``providers.py``: ``writer()``, ``delivery_worker()``

Events come from the tables' streams (``core.events``); the fan-out writes one delivery per (event, webhook) and the
delivery worker sends it. The writer only manages webhooks, and writes ``webhook.test``'s delivery itself.
"""
