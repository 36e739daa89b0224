"""Workspaces: the workspace, its members, plans and settings, and who may write to it.

- ``membership.py``: ``MembershipCheck`` — a caller's access (membership, role, the route's agent), the caller's
  user and the owner's plan; the writers' check needs no more (issue 43, cold path)
- ``workspace.py``: ``WorkspaceService`` — a ``MembershipCheck`` with list, get, ``members`` (where a member is
  listed), the account;
  ``WorkspaceDeletion`` (wired by ``purge.providers.deletion``, which gives it the keys to revoke); ``create.py``
  ``WorkspaceCreation`` and a workspace's first items (its slug, the owner's membership, the default brand it is
  given by ``brands.records.default_brand``, wired by ``brands.providers.workspace_creation``)
- ``access.py``: ``AuthoringAccess`` — the writer's check of a caller as member or writer of a workspace (with the
  route's agent, as stored, from the same read)
- ``writer.py``, ``write_store.py``: ``PATCH /api/workspaces/{id}`` (name, wrap config, default brand and workflow)
- ``invitations.py``, ``invitation_store.py``: ``InvitationService`` — invite (mailed link), list, revoke, accept
  (one transaction: the token used up, the membership written)
- ``members.py``, ``member_store.py``: ``MemberService`` — a member's role, removal or leaving, the ownership's
  transfer (each one transaction conditioned on the roles it read)
- ``default_brand.py``: the transaction steps that move the default brand (the workspace's settings and the brands'
  writes use them)
- ``store.py``: ``WorkspaceStore``; ``records.py``, ``models.py``, ``writer_models.py``, ``ports.py``
- ``providers.py``: ``service()``, ``membership()``, ``store()``, ``access()``, ``writer()``, ``members()``,
  ``invitations()``, ``plan_of()``
"""
