// The console's session. Sign-in (POST /api/auth/magic-link/verify) sets the HttpOnly `session` cookie on this
// origin: the console and the portal API share one origin (CloudFront routes /api/* to API Gateway; `make serve`
// proxies it), so the cookie is first-party and needs no CORS. From it the console mints a portal JWT
// (POST /api/auth/api-token) and keeps it in memory only, never in storage a script could read later; it mints
// another a minute before this one expires, or once after a 401. docs/decisions.md, "The console's session".

export type Jwt = { token: string; expiresAt: number };

let current: Jwt | null = null;
let minting: Promise<Jwt | null> | null = null;

function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: number };
    return (payload.exp ?? 0) * 1000;
  } catch {
    return 0;
  }
}

/** A fresh JWT from the session cookie, or null when there is no signed-in session. */
async function mint(): Promise<Jwt | null> {
  const response = await fetch("/api/auth/api-token", { method: "POST", credentials: "same-origin" });
  if (!response.ok) return null;
  const { token } = (await response.json()) as { token: string };
  return { token, expiresAt: expiryOf(token) };
}

/** The JWT to send, minted when missing or within a minute of expiring. Concurrent callers share one mint. */
export async function jwt(force = false): Promise<string | null> {
  if (!force && current && current.expiresAt - Date.now() > 60_000) return current.token;
  minting ??= mint().finally(() => {
    minting = null;
  });
  current = await minting;
  return current?.token ?? null;
}

export function forget(): void {
  current = null;
}
