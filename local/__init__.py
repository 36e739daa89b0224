"""The Docker-free local runner: moto, resources from template.yaml, demo data, both planes over HTTP."""
