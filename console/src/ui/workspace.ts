import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Schemas } from "../api/client";

/** The workspace's settings (GET /api/workspaces/{id}) with the caller's role in it (from the listing). */
export type Workspace = Schemas["Workspace"] & Pick<Schemas["WorkspaceSummary"], "role" | "memberCount">;

export type WorkspaceScope = {
  workspace: Workspace;
  role: Workspace["role"];
  /** Owners and admins write; a member reads (authoring.md, "Who may write"): the console shows a member no write
   * button, and the API refuses the write anyway. */
  canWrite: boolean;
  /** Conversations, usage, insights, feedback and audit are the owner's and admins' (a member gets 403). */
  canReadPrivate: boolean;
  reload: () => Promise<void>;
};

export const WorkspaceContext = createContext<WorkspaceScope | null>(null);

export function useWorkspace(): WorkspaceScope {
  const scope = useContext(WorkspaceContext);
  if (!scope) throw new Error("useWorkspace outside a workspace's pages");
  return scope;
}

/** A path inside the current workspace's pages. */
export function href(workspaceId: string, rest = ""): string {
  return `/w/${encodeURIComponent(workspaceId)}${rest}`;
}
