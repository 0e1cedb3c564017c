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
let addUser: (username: string) => Promise<void>;

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-auth-routes-", TOKEN));
  ({ POST: login } = await import("./login/route"));
  ({ POST: logout } = await import("./logout/route"));
  ({ POST: setup } = await import("./setup/route"));
  ({ POST: link } = await import("./link/route"));
  ({ POST: trpc, GET: trpcGet } = await import("../trpc/[trpc]/route"));
  const { serverEngine, serverStore } = await import("@/server/runtime");
  const { createSetupLink, inviteUser, redeemLink } = await import("@/server/auth/accounts");
  const db = serverEngine().db!;
  const s = serverStore();
  closeDb = () => db.$client.close();
  setupSecret = (await createSetupLink(s, Date.now()))!;
  addUser = async (username) => {
    const { secret } = await inviteUser(s, { username, role: "viewer" }, Date.now());
    await redeemLink(s, { secret, password: PW }, Date.now());
  };
  inviteViewer = () => addUser("vic");
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

const cookieOf = (res: Response, name = "sy_session") =>
  new RegExp(`${name}=([^;]+)`).exec(res.headers.get("set-cookie") ?? "")?.[1] ?? null;

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

describe("sign-in attempts at once, known devices, password rules", () => {
  const statuses = (all: Response[]) =>
    all.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

  it("40 wrong passwords for one account sent at once: exactly 5 answers of 401, the other 35 are 429", async () => {
    await addUser("para");
    const all = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(
          login,
          "/api/auth/login",
          { username: "para", password: `wrong ${i}` },
          { "x-switchyard-client-address": "10.4.0.1" },
        ),
      ),
    );
    expect(statuses(all)).toEqual({ 401: 5, 429: 35 });
  });

  it("60 wrong passwords from one address sent at once: exactly 20 answers of 401, the other 40 are 429", async () => {
    const all = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        post(
          login,
          "/api/auth/login",
          { username: `nobody${i}`, password: "wrong" },
          { "x-switchyard-client-address": "10.4.0.2" },
        ),
      ),
    );
    expect(statuses(all)).toEqual({ 401: 20, 429: 40 });
  });

  it("a browser that signed in before signs in while the account is locked for everyone else", async () => {
    await addUser("kim");
    const first = await post(login, "/api/auth/login", { username: "kim", password: PW });
    expect(first.status).toBe(200);
    const device = cookieOf(first, "sy_device")!;
    expect(first.headers.getSetCookie().find((c) => c.startsWith("sy_device="))).toMatch(
      /; Path=\/api\/auth\/login; HttpOnly; SameSite=Lax; Expires=/,
    );
    for (let i = 0; i < 5; i++) {
      const wrong = { username: "kim", password: `wrong ${i}` };
      expect((await post(login, "/api/auth/login", wrong, { "x-switchyard-client-address": "6.6.6.6" })).status).toBe(
        401,
      );
    }
    const fresh = await post(login, "/api/auth/login", { username: "kim", password: PW });
    expect(fresh.status).toBe(429);
    const known = await post(
      login,
      "/api/auth/login",
      { username: "kim", password: PW },
      { cookie: `sy_device=${device}` },
    );
    expect(known.status).toBe(200);
    expect(cookieOf(known, "sy_device")).toBe(device);
    const wrongFromKnown = await post(
      login,
      "/api/auth/login",
      { username: "kim", password: "still wrong" },
      { cookie: `sy_device=${device}` },
    );
    expect(wrongFromKnown.status).toBe(401);
    // Another account's device cookie is no key to this one.
    const other = await post(
      login,
      "/api/auth/login",
      { username: "para", password: PW },
      { cookie: `sy_device=${device}` },
    );
    expect(other.status).toBe(429);
  });

  it.each([
    ["under 12 characters", "shorty", "short pass", "at least 12 characters"],
    ["a common password", "common", "password1234", "too easy to guess: This is similar to a commonly used password."],
    [
      "the user's own name with digits",
      "vexilmorant",
      "vexilmorant88",
      "too easy to guess: There should not be any personal or page related data.",
    ],
  ])("an invite link refuses %s with the reason, and the link still works", async (_, name, password, reason) => {
    const { serverStore } = await import("@/server/runtime");
    const { inviteUser } = await import("@/server/auth/accounts");
    const { secret } = await inviteUser(serverStore(), { username: name, role: "viewer" }, Date.now());
    const weak = await post(setup, "/api/auth/setup", { secret, password });
    expect(weak.status).toBe(400);
    expect(await weak.json()).toEqual({ error: `password: ${reason}` });
    expect((await post(setup, "/api/auth/setup", { secret, password: PW })).status).toBe(200);
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
