"""make deploy-check: the stack deployed on LocalStack and compared with template.yaml (docs/deploy-check.md)."""
