"""Knowledge: what an agent reads (authoring.md, "Knowledge: what the agent reads")."""
