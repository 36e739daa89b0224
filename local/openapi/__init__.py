"""``python -m local.openapi``: the OpenAPI documents' command by its former name; the generator is ``stack.openapi``
(issue 26: what code outside the runner imports lives in ``stack``). Nothing imports this package."""
