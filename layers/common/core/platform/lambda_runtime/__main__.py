"""``python -m core.platform.lambda_runtime``: the Runtime API loop, as the layer's ``stream-bootstrap`` starts it.

The loop is imported under its own name, not run as ``__main__``: its logger must sit in the ``core``
tree, which the plane's Powertools Logger configures, or its own lines (an import error) are plain text.
"""

from core.platform.lambda_runtime.loop import main

main()
