import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempServerEnv } from "@/test/server-env";

const TOKEN = "sy_test_token_0123456789abcdefXY";
const ORIGIN = "http://localhost:3000";
const PW = "a good long password";

let restore: () => Promise<void>;
let closeDb: () => void;
let login: typeof import("./login/route").POST;
let logout: typeof import("./logout/route").POST;
let setup: typeof import("./setup/route").POST;
let link: typeof import("./link/route").POST;
let trpc: typeof import("../trpc/[trpc]/route").POST;
let trpcGet: typeof import("../trpc/[trpc]/route").GET;
let setupSecret: string;
let inviteViewer: () => Promise<void>;

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-auth-routes-", TOKEN));
  ({ POST: login } = await import("./login/route"));
  ({ POST: logout } = await import("./logout/route"));
  ({ POST: setup } = await import("./setup/route"));
  ({ POST: link } = await import("./link/route"));
  ({ POST: trpc, GET: trpcGet } = await import("../trpc/[trpc]/route"));
  const { serverDb, serverStore } = await import("@/server/runtime");
  const { createSetupLink, inviteUser, redeemLink } = await import("@/server/auth/accounts");
  const db = serverDb();
  const s = serverStore();
  closeDb = () => db.$client.close();
  setupSecret = (await createSetupLink(s, Date.now()))!;
  inviteViewer = async () => {
    const { secret } = await inviteUser(s, { username: "vic", role: "viewer" }, Date.now());
    await redeemLink(s, { secret, password: PW }, Date.now());
  };
});

afterAll(async () => {
  closeDb?.();
  await restore();
});

function post(
  handler: (req: Request) => Promise<Response> | Response,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return handler(
    new Request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: {
        host: "localhost:3000",
        origin: ORIGIN,
        "content-type": "application/json",
        "x-switchyard-client-address": "10.1.1.1",
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

const cookieOf = (res: Response) => /sy_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? null;

describe("setup link over HTTP", () => {
  it("describes the link, creates the first admin with a session cookie, and works only once", async () => {
    expect(await (await post(link, "/api/auth/link", { secret: setupSecret })).json()).toEqual({
      purpose: "setup",
      username: null,
    });
    const weak = await post(setup, "/api/auth/setup", { secret: setupSecret, username: "root", password: "short" });
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { error: string }).error).toMatch(/^password: at least 12 characters/);
    const res = await post(setup, "/api/auth/setup", { secret: setupSecret, username: "Root", password: PW });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ username: "root", role: "admin" });
    expect(res.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Lax/);
    expect(res.headers.get("set-cookie")).not.toMatch(/Secure/);
    const again = await post(setup, "/api/auth/setup", { secret: setupSecret, username: "other", password: PW });
    expect(again.status).toBe(404);
  });
});

describe("login, logout, rate limit", () => {
  it("signs in, the cookie opens the API, logout ends it", async () => {
    const res = await post(login, "/api/auth/login", { username: "root", password: PW });
    expect(res.status).toBe(200);
    const cookie = cookieOf(res)!;
    const me = await trpcGet(
      new Request(`${ORIGIN}/api/trpc/users.me`, {
        headers: { host: "localhost:3000", cookie: `sy_session=${cookie}` },
      }),
    );
    expect(me.status).toBe(200);
    const out = await post(logout, "/api/auth/logout", "", { cookie: `sy_session=${cookie}` });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/login");
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const after = await trpcGet(
      new Request(`${ORIGIN}/api/trpc/users.me`, {
        headers: { host: "localhost:3000", cookie: `sy_session=${cookie}` },
      }),
    );
    expect(after.status).toBe(401);
  });

  it("a wrong password is 401 without saying which part was wrong; the 6th try is 429 with Retry-After", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await post(
        login,
        "/api/auth/login",
        { username: "root", password: `wrong ${i}` },
        { "x-switchyard-client-address": `10.2.0.${i}` },
      );
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "wrong username or password" });
    }
    const blocked = await post(
      login,
      "/api/auth/login",
      { username: "root", password: PW },
      { "x-switchyard-client-address": "10.2.0.99" },
    );
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { error: string }).error).toMatch(
      /Too many failed sign-in attempts for this account/,
    );
  });

  it("a failure that cannot be counted (another process holds the write lock) is 503, not an answer", async () => {
    const { default: Database } = await import("better-sqlite3");
    const { env } = await import("@/server/env");
    const other = new Database(env().SWITCHYARD_DB);
    other.prepare("BEGIN IMMEDIATE").run();
    try {
      const res = await post(
        login,
        "/api/auth/login",
        { username: "ghost", password: "wrong again" },
        { "x-switchyard-client-address": "10.3.0.1" },
      );
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
    } finally {
      other.prepare("ROLLBACK").run();
      other.close();
    }
  });

  it("refuses a cross-origin sign-in, a body over 8 KiB, and a non-JSON body", async () => {
    expect(
      (await post(login, "/api/auth/login", { username: "x", password: "y" }, { origin: "https://evil.example" }))
        .status,
    ).toBe(403);
    expect((await post(login, "/api/auth/login", { username: "x", password: "y".repeat(10_000) })).status).toBe(413);
    expect((await post(login, "/api/auth/login", "{not json")).status).toBe(400);
  });
});

describe("tRPC over HTTP", () => {
  it("a viewer's session cannot publish a policy; a cross-origin mutation is refused before anything runs", async () => {
    await inviteViewer();
    const cookie = cookieOf(await post(login, "/api/auth/login", { username: "vic", password: PW }))!;
    const body = { json: { kind: "retention", document: {}, baseVersion: null } };
    const asViewer = await post(trpc, "/api/trpc/policies.publish", body, { cookie: `sy_session=${cookie}` });
    expect(asViewer.status).toBe(403);
    const crossSite = await post(trpc, "/api/trpc/policies.publish", body, {
      cookie: `sy_session=${cookie}`,
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { error: string }).error).toBe("cross-origin request refused");
    const headers = { host: "localhost:3000", cookie: `sy_session=${cookie}`, "sec-fetch-site": "cross-site" };
    const marked = await trpc(
      new Request(`${ORIGIN}/api/trpc/policies.publish`, { method: "POST", headers, body: JSON.stringify(body) }),
    );
    expect(marked.status).toBe(403);
    expect(((await marked.json()) as { error: string }).error).toBe("cross-origin request refused");
  });

  it("signed out is 401, a body over 1 MiB is 413, and errors carry no stack", async () => {
    const res = await trpcGet(
      new Request(`${ORIGIN}/api/trpc/overview.summary`, { headers: { host: "localhost:3000" } }),
    );
    expect(res.status).toBe(401);
    expect(JSON.stringify(await res.json())).not.toMatch(/stack|at .*\.ts:\d+/);
    const big = await post(
      trpc,
      "/api/trpc/policies.publish",
      { json: { comment: "x".repeat(1_100_000) } },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(big.status).toBe(413);
  });
});
