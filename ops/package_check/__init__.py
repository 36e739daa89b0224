"""The package that deploys, checked as it runs: ``python -m ops.package_check`` (``make package-check``)."""
