// The console's routes. Each resource's pages load lazily (one chunk each), so the first page carries only the
// shell. Paths are real paths (CloudFront's viewer function and `make serve` answer index.html for any path without
// a file extension); `/api/*` never reaches this router.
import { ErrorBoundary, LocationProvider, Route, Router, lazy } from "preact-iso";
import { SignIn } from "./pages/auth/SignIn";
import { Home } from "./pages/workspaces/Home";
import { Shell } from "./ui/Shell";

const WorkspacePages = lazy(() => import("./pages/WorkspacePages").then((m) => m.WorkspacePages));
const AcceptInvitation = lazy(() => import("./pages/members/AcceptInvitation").then((m) => m.AcceptInvitation));
const Account = lazy(() => import("./pages/auth/Account").then((m) => m.Account));

export function App() {
  return (
    <LocationProvider>
      <ErrorBoundary>
        <Router>
          <Route path="/sign-in" component={SignIn} />
          <Route path="/invitations" component={() => <Shell><AcceptInvitation /></Shell>} />
          <Route path="/account" component={() => <Shell><Account /></Shell>} />
          {/* preact-iso drops a trailing slash and `/*` needs one more segment: the workspace's root has its own route. */}
          <Route path="/w/:workspaceId" component={WorkspacePages} />
          <Route path="/w/:workspaceId/*" component={WorkspacePages} />
          <Route default component={() => <Shell><Home /></Shell>} />
        </Router>
      </ErrorBoundary>
    </LocationProvider>
  );
}
