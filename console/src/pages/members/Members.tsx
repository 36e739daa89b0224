// A workspace's people: its members and their roles, and the pending invitations.
// What each role may do (authoring.md, "Members and invitations"), shown as buttons only where the API allows it:
// - the owner makes and unmakes admins, removes anyone but themselves, and transfers the workspace to an admin;
// - an admin invites members, removes members (never an admin or the owner) and revokes invitations;
// - anyone but the owner may leave; a member sees no other button (the API refuses the writes anyway: 403).
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok, type Schemas } from "../../api/client";
import { ConfirmButton } from "../../ui/Buttons";
import { Empty, ErrorBox, Loading, Notice } from "../../ui/Status";
import { useAction } from "../../ui/useAction";
import { useLoad } from "../../ui/useLoad";
import { useWorkspace } from "../../ui/workspace";
import { listMembers, personName, when, type Member } from "./people";

type Role = Member["role"];
type Invitation = Schemas["Invitation"];

const ROLE_WORDS: Record<Role, string> = {
  owner: "Owner",
  admin: "Admin",
  member: "Member",
};

const ROLE_MEANS: Record<Role, string> = {
  owner: "does everything, decides who is an admin, and pays for the workspace with their plan and credits",
  admin: "changes everything, invites members and mints keys",
  member: "reads agents, knowledge, posts and keys, and changes nothing",
};

export function Members() {
  const scope = useWorkspace();
  const { workspace, role: myRole, canWrite } = scope;
  const workspaceId = workspace.id;
  const location = useLocation();
  const me = useLoad(() => ok(() => api.GET("/api/user/account")), []);
  const members = useLoad(() => listMembers(workspaceId), [workspaceId]);
  const invitations = useLoad(
    () =>
      canWrite
        ? ok(() => api.GET("/api/workspaces/{workspaceId}/invitations", { params: { path: { workspaceId } } })).then((i) => i.invitations)
        : Promise.resolve([] as Invitation[]),
    [workspaceId, canWrite],
  );
  const [notice, setNotice] = useState("");
  const { error, run } = useAction();
  const people = members.data && new Map(members.data.map((m) => [m.userId, m]));
  const isOwner = myRole === "owner";

  /** One write, its notice, and what it changed read again. */
  async function act(work: () => Promise<unknown>, done: string, after: () => Promise<void> = members.reload) {
    setNotice("");
    await run(async () => {
      await work();
      setNotice(done);
      await after();
    });
  }

  const path = (userId: string) => ({ params: { path: { workspaceId, userId } } });

  return (
    <section>
      <h1>Members</h1>
      <p class="muted">
        Your role here: <strong>{ROLE_WORDS[myRole]}</strong>, who {ROLE_MEANS[myRole]}.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} />

      <h2>People in this workspace</h2>
      {members.loading && !members.data && <Loading label="Loading members…" />}
      <ErrorBox error={members.error} onRetry={members.reload} />
      {members.data && me.data && (
        <div class="table-wrap">
          <table class="members">
            <caption class="sr-only">Members and their roles</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => {
                const self = m.userId === me.data!.id;
                const who = personName(people, m.userId);
                // Only the owner changes roles (never their own: that moves by a transfer).
                const mayChangeRole = isOwner && m.role !== "owner";
                // The owner removes anyone else; an admin removes members only.
                const mayRemove = !self && m.role !== "owner" && (isOwner || (myRole === "admin" && m.role === "member"));
                const mayTransfer = isOwner && m.role === "admin";
                return (
                  <tr data-user-id={m.userId}>
                    <th scope="row">
                      {m.name && m.name !== m.email ? (
                        <>
                          {m.name}
                          <br />
                          <span class="muted">{m.email}</span>
                        </>
                      ) : (
                        m.email
                      )}
                      {self && <span class="badge">You</span>}
                    </th>
                    <td>{ROLE_WORDS[m.role]}</td>
                    <td>{when(m.createdAt)}</td>
                    <td class="actions">
                      {mayChangeRole && m.role === "member" && (
                        <button type="button" onClick={() =>
                          act(() => ok(() => api.PATCH("/api/workspaces/{workspaceId}/members/{userId}", { ...path(m.userId), body: { role: "admin" } })),
                            `${who} is an admin now.`)}>
                          Make admin<span class="sr-only"> {m.email}</span>
                        </button>
                      )}
                      {mayChangeRole && m.role === "admin" && (
                        <button type="button" onClick={() =>
                          act(() => ok(() => api.PATCH("/api/workspaces/{workspaceId}/members/{userId}", { ...path(m.userId), body: { role: "member" } })),
                            `${who} is a member now (no longer an admin).`)}>
                          Make member<span class="sr-only"> {m.email}</span>
                        </button>
                      )}
                      {mayTransfer && (
                        <ConfirmButton
                          label="Make owner"
                          confirm={`Give the workspace to ${who}? You stay an admin; only they can give it back.`}
                          onConfirm={() =>
                            act(
                              () => ok(() => api.POST("/api/workspaces/{workspaceId}/transfer", { params: { path: { workspaceId } }, body: { userId: m.userId } })),
                              `${who} owns the workspace now; you are an admin.`,
                              async () => {
                                await members.reload();
                                await scope.reload();
                              },
                            )
                          }
                        />
                      )}
                      {mayRemove && (
                        <ConfirmButton
                          label="Remove"
                          confirm={`Remove ${who} from the workspace?`}
                          onConfirm={() =>
                            act(() => ok(() => api.DELETE("/api/workspaces/{workspaceId}/members/{userId}", path(m.userId))), `${who} was removed.`)
                          }
                        />
                      )}
                      {self && m.role !== "owner" && (
                        <ConfirmButton
                          label="Leave workspace"
                          confirm="Leave this workspace? You will need a new invitation to come back."
                          onConfirm={() =>
                            act(
                              () => ok(() => api.DELETE("/api/workspaces/{workspaceId}/members/{userId}", path(m.userId))),
                              "You left the workspace.",
                              async () => location.route("/"),
                            )
                          }
                        />
                      )}
                      {self && m.role === "owner" && (
                        <span class="muted">To leave, first make an admin the owner.</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ErrorBox error={me.error} onRetry={me.reload} />

      {canWrite && (
        <>
          <InviteForm workspaceId={workspaceId} mayInviteAdmin={isOwner} onInvited={async (email) => {
            setNotice(`An invitation is on its way to ${email}. Its link works once, for 7 days.`);
            await invitations.reload();
          }} />
          <h2>Pending invitations</h2>
          {invitations.loading && !invitations.data && <Loading label="Loading invitations…" />}
          <ErrorBox error={invitations.error} onRetry={invitations.reload} />
          {invitations.data?.length === 0 && (
            <Empty title="No invitation is waiting.">
              <p>Invite someone above: they get a link by mail and join once they sign in with that address.</p>
            </Empty>
          )}
          {invitations.data && invitations.data.length > 0 && (
            <div class="table-wrap">
              <table class="invitations">
                <caption class="sr-only">Pending invitations</caption>
                <thead>
                  <tr>
                    <th scope="col">Address</th>
                    <th scope="col">Role</th>
                    <th scope="col">Invited by</th>
                    <th scope="col">Link works until</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {invitations.data.map((invitation) => (
                    <tr data-invitation-id={invitation.id}>
                      <th scope="row">{invitation.email}</th>
                      <td>{ROLE_WORDS[invitation.role]}</td>
                      <td>{personName(people, invitation.invitedBy)}</td>
                      <td>{when(invitation.expiresAt)}</td>
                      <td class="actions">
                        <ConfirmButton
                          label="Revoke"
                          confirm={`Revoke the invitation of ${invitation.email}? Its link stops working.`}
                          onConfirm={() =>
                            act(
                              () =>
                                ok(() =>
                                  api.DELETE("/api/workspaces/{workspaceId}/invitations/{invitationId}", {
                                    params: { path: { workspaceId, invitationId: invitation.id } },
                                  }),
                                ),
                              `The invitation of ${invitation.email} is revoked.`,
                              invitations.reload,
                            )
                          }
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function InviteForm({ workspaceId, mayInviteAdmin, onInvited }: {
  workspaceId: string;
  mayInviteAdmin: boolean;
  onInvited: (email: string) => Promise<void>;
}) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"admin" | "member">("member");
  const { busy, error, run } = useAction();
  return (
    <form
      class="inline"
      aria-labelledby="invite-title"
      onSubmit={async (event) => {
        event.preventDefault();
        await run(async () => {
          const address = email.trim();
          await ok(() =>
            api.POST("/api/workspaces/{workspaceId}/invitations", { params: { path: { workspaceId } }, body: { email: address, role } }),
          );
          setEmail("");
          await onInvited(address);
        });
      }}
    >
      <h2 id="invite-title" class="form-title">
        Invite someone
      </h2>
      <label>
        Email address
        <input type="email" required autoComplete="off" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as "admin" | "member")}>
          <option value="member">Member (reads, writes nothing)</option>
          {mayInviteAdmin && <option value="admin">Admin (writes, invites members)</option>}
        </select>
      </label>
      <button type="submit" disabled={busy} aria-busy={busy}>
        {busy ? "Sending…" : "Send invitation"}
      </button>
      <div class="form-error">
        <ErrorBox error={error} />
      </div>
    </form>
  );
}
