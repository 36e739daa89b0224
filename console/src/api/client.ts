// The one client of the portal API, typed by src/api/schema.d.ts (generated from docs/openapi/portal.json at every
// build): a route, a parameter or a field the API no longer has fails `tsc`, so the build, not a user.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";
import { forget, jwt } from "./session";

export type Schemas = components["schemas"];

/** An answer of the API that is not 2xx, with its `{error, code}` body and what the person can do about it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** What to do next, in words, for the codes a person can act on. */
  get advice(): string {
    switch (this.code) {
      case "UNAUTHORIZED":
        return "Your session has ended: sign in again.";
      case "FORBIDDEN":
        return "Your role in this workspace does not allow this: ask its owner or an admin.";
      case "INSUFFICIENT_CREDITS":
        return "The workspace owner's credits are used up: add credits, then try again.";
      case "PLAN_LIMIT_REACHED":
      case "STORAGE_LIMIT_REACHED":
        return "This is over the plan's limit: remove something or move to a larger plan.";
      case "RATE_LIMITED":
        return "Too many requests in a short time: wait a minute and try again.";
      case "CONFLICT":
        return "Someone changed this at the same time: reload and try again.";
      case "NOT_FOUND":
        return "It no longer exists: reload the page.";
      case "VALIDATION_ERROR":
        return "Correct the field named above and try again.";
      default:
        return this.status >= 500 ? "The service failed: try again in a moment." : "";
    }
  }
}

const auth: Middleware = {
  async onRequest({ request }) {
    const token = await jwt();
    if (token) request.headers.set("Authorization", `Bearer ${token}`);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });
api.use(auth);

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The data of an answer, or an ApiError carrying the API's own message. One retry after a 401 with a new JWT. */
export async function ok<T>(call: () => Promise<Answer<T>>): Promise<T> {
  let answer = await call();
  if (answer.response.status === 401 && (await jwt(true))) answer = await call();
  if (answer.response.ok) return answer.data as T;
  const body = (answer.error ?? {}) as { error?: string; code?: string };
  if (answer.response.status === 401) forget();
  throw new ApiError(answer.response.status, body.code ?? "HTTP_" + answer.response.status, body.error ?? answer.response.statusText);
}

/** Every page of a listing whose body carries `nextCursor` (keys, items, agents), following it until a page has
 * none: a listing reads one page a request (issue 43), and the console's whole-list views must not stop at the first. */
export async function everyListed<P extends { nextCursor?: string | null }, T>(
  call: (cursor: string | undefined) => Promise<Answer<P>>,
  items: (page: P) => T[],
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(() => call(cursor));
    all.push(...items(page));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** Every page of a listing whose body is a bare array (members, brands: service-api.md fixes the array), following
 * the `Next-Cursor` header until a page has none, so a long list is never cut at its first page. */
export async function everyPage<T>(call: (cursor: string | undefined) => Promise<Answer<T[]>>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    let next: string | null = null;
    const page = await ok(async () => {
      const answer = await call(cursor);
      next = answer.response.headers.get("Next-Cursor");
      return answer;
    });
    all.push(...page);
    cursor = next ?? undefined;
  } while (cursor);
  return all;
}
