// One agent's pages under /w/:workspaceId/agents/:agentId: a tab each, loaded lazily.
import { Route, Router, lazy, useLocation, useRoute } from "preact-iso";
import { api, ok } from "../../api/client";
import { ErrorBox, Loading } from "../../ui/Status";
import { useLoad } from "../../ui/useLoad";
import { href, useWorkspace } from "../../ui/workspace";
import { AgentContext } from "./agent";

const Behaviour = lazy(() => import("./Behaviour").then((m) => m.Behaviour));
const Knowledge = lazy(() => import("../knowledge/Knowledge").then((m) => m.Knowledge));
const Answers = lazy(() => import("../knowledge/Answers").then((m) => m.Answers));
const Posts = lazy(() => import("../posts/Posts").then((m) => m.Posts));
const Conversations = lazy(() => import("../conversations/Conversations").then((m) => m.Conversations));
const Insights = lazy(() => import("../insights/Insights").then((m) => m.Insights));

const TABS: { path: string; label: string; private?: boolean }[] = [
  { path: "/", label: "Behaviour and preview" },
  { path: "/knowledge", label: "Knowledge" },
  { path: "/answers", label: "Answers" },
  { path: "/posts", label: "Posts" },
  { path: "/conversations", label: "Conversations", private: true },
  { path: "/insights", label: "Insights", private: true },
];

export function AgentPages() {
  const { params } = useRoute();
  const { path } = useLocation();
  const { workspace, canReadPrivate } = useWorkspace();
  const agentId = params.agentId!;
  const loaded = useLoad(
    () => ok(() => api.GET("/api/workspaces/{workspaceId}/agents/{agentId}", { params: { path: { workspaceId: workspace.id, agentId } } })),
    [workspace.id, agentId],
  );
  const base = href(workspace.id, `/agents/${encodeURIComponent(agentId)}`);
  const agent = loaded.data?.agent;
  return (
    <>
      <p class="crumbs">
        <a href={href(workspace.id, "/")}>Agents</a> / <span>{agent?.name ?? agentId}</span>
      </p>
      <nav class="tabs" aria-label="Agent">
        <ul>
          {TABS.filter((t) => canReadPrivate || !t.private).map((t) => {
            const target = base + (t.path === "/" ? "/" : t.path);
            const current = t.path === "/" ? path === base || path === base + "/" : path.startsWith(target);
            return (
              <li>
                <a href={target} aria-current={current ? "page" : undefined}>
                  {t.label}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {!agent && loaded.loading && <Loading />}
      <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      {agent && (
        <AgentContext.Provider value={{ agent, reload: loaded.reload }}>
          <Router>
            <Route path="/" component={Behaviour} />
            <Route path="/knowledge" component={Knowledge} />
            <Route path="/answers" component={Answers} />
            <Route path="/posts" component={Posts} />
            <Route path="/conversations" component={Conversations} />
            <Route path="/insights" component={Insights} />
          </Router>
        </AgentContext.Provider>
      )}
    </>
  );
}
