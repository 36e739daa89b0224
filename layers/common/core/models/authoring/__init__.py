"""What owners write and read back on the management plane (authoring.md): the resources, request bodies and
the field rules they share. The read plane never loads this package (tests/unit/test_cold_path.py)."""
