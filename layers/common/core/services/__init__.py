"""Business logic each endpoint calls. Services speak in records and wire models, never boto3."""
