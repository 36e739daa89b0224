// Everything under /w/:workspaceId: the workspace is read once, its role decides what is shown, and each resource's
// pages load lazily. The side navigation lists what the role may open.
import { Route, Router, lazy, useLocation, useRoute } from "preact-iso";
import { api, ok } from "../api/client";
import { Shell } from "../ui/Shell";
import { ErrorBox, Loading } from "../ui/Status";
import { useLoad } from "../ui/useLoad";
import { WorkspaceContext, href } from "../ui/workspace";

const Agents = lazy(() => import("./agents/Agents").then((m) => m.Agents));
const AgentPages = lazy(() => import("./agents/AgentPages").then((m) => m.AgentPages));
const Settings = lazy(() => import("./workspaces/Settings").then((m) => m.Settings));
const Keys = lazy(() => import("./keys/Keys").then((m) => m.Keys));
const Members = lazy(() => import("./members/Members").then((m) => m.Members));
const Audit = lazy(() => import("./audit/Audit").then((m) => m.Audit));
const Credits = lazy(() => import("./credits/Credits").then((m) => m.Credits));
const Webhooks = lazy(() => import("./webhooks/Webhooks").then((m) => m.Webhooks));

const NAV: { path: string; label: string; private?: boolean }[] = [
  { path: "/", label: "Agents" },
  { path: "/keys", label: "Keys" },
  { path: "/members", label: "Members" },
  { path: "/webhooks", label: "Webhooks", private: true },
  { path: "/audit", label: "Audit log", private: true },
  { path: "/credits", label: "Credits" },
  { path: "/settings", label: "Settings" },
];

export function WorkspacePages() {
  const { params } = useRoute();
  const workspaceId = params.workspaceId!;
  // The workspace's settings and the caller's role in it (the role is on the listing's summaries), read together.
  const loaded = useLoad(
    () =>
      Promise.all([
        ok(() => api.GET("/api/workspaces/{workspaceId}", { params: { path: { workspaceId } } })),
        ok(() => api.GET("/api/workspaces")),
      ]).then(([detail, mine]) => {
        const summary = mine.find((w) => w.id === workspaceId);
        return summary ? { ...detail.workspace, role: summary.role, memberCount: summary.memberCount } : undefined;
      }),
    [workspaceId],
  );
  const workspace = loaded.data;
  const scope = workspace && {
    workspace,
    role: workspace.role,
    canWrite: workspace.role !== "member",
    canReadPrivate: workspace.role !== "member",
    reload: loaded.reload,
  };
  return (
    <Shell workspaceId={workspaceId} nav={workspace && <SideNav workspaceId={workspaceId} member={workspace.role === "member"} />}>
      {!workspace && loaded.loading && <Loading />}
      <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      {scope && (
        <WorkspaceContext.Provider value={scope}>
          <Router>
            <Route path="/" component={Agents} />
            <Route path="/agents/:agentId" component={AgentPages} />
            <Route path="/agents/:agentId/*" component={AgentPages} />
            <Route path="/keys" component={Keys} />
            <Route path="/members" component={Members} />
            <Route path="/audit" component={Audit} />
            <Route path="/credits" component={Credits} />
            <Route path="/webhooks" component={Webhooks} />
            <Route path="/settings" component={Settings} />
            <Route default component={NotFound} />
          </Router>
        </WorkspaceContext.Provider>
      )}
    </Shell>
  );
}

function SideNav({ workspaceId, member }: { workspaceId: string; member: boolean }) {
  const { path } = useLocation();
  return (
    <nav class="side" aria-label="Workspace">
      <ul>
        {NAV.filter((n) => !(member && n.private)).map((n) => {
          const target = href(workspaceId, n.path);
          const current = n.path === "/" ? path === target || path + "/" === target || path.startsWith(href(workspaceId, "/agents")) : path.startsWith(target);
          return (
            <li>
              <a href={target} aria-current={current ? "page" : undefined}>
                {n.label}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        This page does not exist. <a href="/">Back to your workspaces</a>.
      </p>
    </section>
  );
}

