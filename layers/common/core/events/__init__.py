"""Events: what changed, from the tables' streams (issue 42). ``catalogue.py``: the event types (H1 completes this
package: records, changes, owners, store, providers)."""
