"""Shared layer: models, settings, errors, auth, repositories and services for every function."""
