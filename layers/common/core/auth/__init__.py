"""Credential checks: workspace API keys (read plane) and portal JWTs (management plane)."""
