// People as a person reads them: the API names them by user id (an audit entry's actor, an invitation's inviter, a
// key's minter); the console shows their name and address instead, from the workspace's members list, read once.
import { api, everyPage, type Schemas } from "../../api/client";

export type Member = Schemas["Member"];
export type People = Map<string, Member>;

/** Every member of the workspace, page after page (the listing answers 200 at a time). */
export function listMembers(workspaceId: string): Promise<Member[]> {
  return everyPage((cursor) =>
    api.GET("/api/workspaces/{workspaceId}/members", { params: { path: { workspaceId }, query: { cursor } } }),
  );
}

export async function loadPeople(workspaceId: string): Promise<People> {
  const members = await listMembers(workspaceId);
  return new Map(members.map((m) => [m.userId, m]));
}

/** "Ada Lovelace (ada@example.com)", the address alone when there is no name, or words for someone gone. */
export function personName(people: People | undefined, userId: string | null | undefined): string {
  if (!userId) return "someone unknown";
  const member = people?.get(userId);
  if (!member) return "a former member";
  const name = member.name.trim();
  return name && name !== member.email ? `${name} (${member.email})` : member.email;
}

/** A date and time in the reader's own zone and language: "12 Mar 2026, 14:05". */
export function when(iso: string | null | undefined): string {
  if (!iso) return "never";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
