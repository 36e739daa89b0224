"""Agent bundles (docs/bundles.md): a folder describing one agent, published to a workspace or exported from one.

from workspace_client import Portal
from workspace_client.bundle import publish, export

plan = publish(portal, workspace_id, Path("examples/northwind-barista"))   # the plan it carried out
print(plan)                                                                # one line per change, then totals
export(portal, workspace_id, "barista", Path("barista-copy"))             # publishing it changes nothing
"""

from .changes import Change, Plan
from .export import export
from .files import BundleError
from .format import Bundle, load_bundle
from .plan import make_plan
from .publish import carry_out, publish
from .upload import UploadError

__all__ = [
    "Bundle",
    "BundleError",
    "Change",
    "Plan",
    "UploadError",
    "carry_out",
    "export",
    "load_bundle",
    "make_plan",
    "publish",
]
