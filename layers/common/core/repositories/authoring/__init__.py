"""The writer's storage (authoring.md): agents, posts, items, brands, workflows, workspace settings, objects,
uploads and the audit log. Only management-plane functions load this package; the read plane reads what it
writes through ``core.repositories.agents`` and never imports it (tests/unit/test_cold_path.py)."""
