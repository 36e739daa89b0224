"""Generated from docs/openapi by clients/python/generate.py: do not edit."""
