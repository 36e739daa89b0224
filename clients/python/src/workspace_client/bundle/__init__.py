"""Agent bundles (docs/bundles.md): a folder describing one agent, published to a workspace or exported from one.

from workspace_client import Portal
from workspace_client.bundle import publish, export

plan = publish(portal, workspace_id, Path("examples/northwind-barista"))   # the plan it carried out
print(plan)                                                                # one line per change, then totals
export(portal, workspace_id, "barista", Path("barista-copy"))             # publishing it changes nothing

plan = make_plan(portal, workspace_id, load_bundle(path)); agent_id = carry_out(portal, plan)
report = wait_for_index(portal, plan, agent_id)                            # the documents it changed, read
"""

from .changes import Change, Plan
from .export import export
from .files import BundleError
from .format import Bundle, load_bundle
from .indexing import DocumentIndex, IndexReport, wait_for_index
from .plan import make_plan
from .publish import carry_out, publish
from .upload import UploadError

__all__ = [
    "Bundle",
    "BundleError",
    "Change",
    "DocumentIndex",
    "IndexReport",
    "Plan",
    "UploadError",
    "carry_out",
    "export",
    "load_bundle",
    "make_plan",
    "publish",
    "wait_for_index",
]
