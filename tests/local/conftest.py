"""The local API Gateway over a real socket: the brain API of template.yaml, with containers for its functions.

Only the fallback function ever runs here (unknown paths), so no AWS emulation is needed. Fixtures only; the
socket helpers are in ``tests/support/gateway_socket.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from local.containers.pool import ContainerPool
from local.gateway.api import ApiGateway
from local.gateway.http_server import serve
from tests.conftest import FAKE_AWS
from tests.support.gateway_socket import Served
from tests.support.lambdas import stack


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    the_stack = stack()
    functions = the_stack.functions()
    pool = ContainerPool(functions, [str(p) for p in the_stack.layer_dirs()], dict(FAKE_AWS))
    openapi_dir = tmp_path_factory.mktemp("openapi")
    gateway = ApiGateway(the_stack, "BrainApi", pool, openapi_dir=openapi_dir)
    server = serve(gateway, "127.0.0.1", 0)
    try:
        yield Served(server.server_address[1], gateway, openapi_dir)
    finally:
        server.shutdown()
        server.server_close()
        pool.close()
