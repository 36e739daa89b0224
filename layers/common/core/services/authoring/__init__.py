"""The writer (authoring.md): what owners and admins change, and members read, on the management plane.

One module per resource: ``workspace_settings``, ``brands``, ``workflows``, ``agents``, ``posts`` (where a post is
published), ``items``, ``uploads`` and ``objects``; every write passes ``writes.Writes`` once (Idempotency-Key and
the audit entry) and checks its caller through ``access.AuthoringAccess``. The read plane never imports this package.
"""
