// Roles and token scopes: pure, shared by the tRPC middleware, the routes and the admin pages.

export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** What a procedure declares: "public" needs no sign-in, the others need at least that role. */
export type Requirement = "public" | Role;

export const TOKEN_SCOPES = ["ingest", "read", "operate", "admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** Who is calling: a signed-in user or an API token acting with a role. */
export type Actor = { kind: "user" | "token"; id: number; name: string; role: Role };

const rank: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/** True when role meets the requirement. */
export function satisfies(role: Role | null, need: Requirement): boolean {
  if (need === "public") return true;
  return role !== null && rank[role] >= rank[need];
}

/** The API role a token scope grants; ingest tokens only send telemetry (null). */
export function scopeRole(scope: TokenScope): Role | null {
  return scope === "read" ? "viewer" : scope === "operate" ? "operator" : scope === "admin" ? "admin" : null;
}

/** Scopes that may post telemetry. */
export const INGEST_SCOPES: TokenScope[] = ["ingest", "admin"];

export function isRole(v: string): v is Role {
  return (ROLES as readonly string[]).includes(v);
}

export function isScope(v: string): v is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(v);
}
