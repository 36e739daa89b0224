"""Tests of the Python client (clients/python): unit tests on httpx.MockTransport, and over HTTP against the runner."""
