"""Credits: the ledger, balances, holds, and billing.

- ``billing.py``: ``Billing`` — where a chat turn is billed (``hold``, ``settle``, ``release``) and the hold
  sweeper (``sweep``)
- ``reader.py``: ``CreditReader`` — the portal's balance and history (``history``: a ledger page)
- ``store.py``: ``LedgerStore`` (``ledger_items.py`` its item layout); ``records.py``, ``models.py``, ``ports.py``
- ``providers.py``: ``billing()``, ``reader()``
"""
