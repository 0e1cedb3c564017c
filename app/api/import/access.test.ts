import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertUser, revokeToken } from "@/db/store/accounts";
import type { Store } from "@/db/store/store";
import { SESSION_COOKIE } from "@/server/auth/constants";
import { startSession } from "@/server/auth/sign-in-sessions";
import { createToken } from "@/server/auth/tokens";
import { useTempServerEnv } from "@/test/server-env";

// Who may POST /api/import, stated as a list: every token scope and session role, as a script (no Origin) and from
// another site. The body is one blank line: an accepted upload stores nothing.

const CONFIGURED = "sy_test_token_import_access_0123456";
const HOST = "localhost:3000";
const SAME = { origin: `http://${HOST}`, host: HOST };
const OTHER = { origin: "http://evil.example", host: HOST };

let restore: () => Promise<void>;
let POST: typeof import("./route").POST;
let store: Store;
const token: Record<string, string> = {};
const cookie: Record<string, string> = {};

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-import-access-", CONFIGURED));
  ({ POST } = await import("./route"));
  store = (await import("@/server/runtime")).serverStore();
  const now = Date.now();
  for (const scope of ["ingest", "read", "operate", "admin"] as const)
    token[scope] = (await createToken(store, { name: scope, scope, createdBy: "test" }, now)).token;
  const revoked = await createToken(store, { name: "revoked", scope: "admin", createdBy: "test" }, now);
  await revokeToken(store, revoked.id, now);
  token.revoked = revoked.token;
  for (const role of ["viewer", "operator", "admin"]) {
    const id = await insertUser(store, { username: role, role, passwordHash: null }, now);
    cookie[role] = `${SESSION_COOKIE}=${(await startSession(store, id, now, 60_000)).value}`;
  }
});

afterAll(async () => {
  (await import("@/server/runtime")).serverEngine().db!.$client.close();
  await restore();
});

const bearer = (name: string) => ({ authorization: `Bearer ${name === "configured" ? CONFIGURED : token[name]}` });

describe("POST /api/import: who may upload", () => {
  it.each<[string, () => Record<string, string>, 200 | 401 | 403]>([
    ["nobody", () => ({}), 401],
    ["an unknown token", () => ({ authorization: "Bearer sy_admin_unknown" }), 401],
    ["a revoked admin token", () => bearer("revoked"), 401],
    ["the configured SWITCHYARD_INGEST_TOKEN", () => bearer("configured"), 200],
    ["an ingest token", () => bearer("ingest"), 200],
    ["an ingest token with another site's Origin", () => ({ ...bearer("ingest"), ...OTHER }), 200],
    ["a read token", () => bearer("read"), 403],
    ["an operate token", () => bearer("operate"), 200],
    ["an operate token with another site's Origin", () => ({ ...bearer("operate"), ...OTHER }), 403],
    ["an admin token", () => bearer("admin"), 200],
    ["an admin token with another site's Origin", () => ({ ...bearer("admin"), ...OTHER }), 200],
    ["a viewer's session", () => ({ cookie: cookie.viewer!, ...SAME }), 403],
    ["an operator's session", () => ({ cookie: cookie.operator!, ...SAME }), 200],
    ["an operator's session from another site", () => ({ cookie: cookie.operator!, ...OTHER }), 403],
    ["an admin's session", () => ({ cookie: cookie.admin!, ...SAME }), 200],
    ["an admin's session from another site", () => ({ cookie: cookie.admin!, ...OTHER }), 403],
  ])("%s → %i", async (_, headers, status) => {
    const res = await POST(
      new Request(`http://${HOST}/api/import`, { method: "POST", body: "\n", headers: { host: HOST, ...headers() } }),
    );
    expect(res.status, await res.clone().text()).toBe(status);
    if (status === 200) expect(await res.json()).toMatchObject({ records: 0, accepted: 0, fatal: null });
  });
});
