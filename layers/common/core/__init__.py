"""The shared layer: one package per resource (its models, records, store, service, writer, providers) and
``platform`` for what all share; ``http`` is the one factory handlers use. Map: docs/architecture.md."""
