import Database from "better-sqlite3";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { adminApi, adminMutation, createUser, E2E_PASSWORD, signedOut } from "../fixtures/auth";
import { uniq } from "../fixtures/telemetry";

// Issue 32's sign-in probe replayed over HTTP: an open redirect through ?next=, parallel guesses slipping past the
// limit, anyone locking anyone's account, weak passwords, and forged X-Forwarded-* headers. Every test signs in as a
// user of its own, so the e2e admin the other specs use is never locked.

const userName = (prefix: string) =>
  uniq(prefix)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-");

/** A fresh cookie-less request context. */
const anonymous = (baseURL: string) =>
  playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });

/** The sign-in limit's counts per key, read from the e2e dashboard's database. */
function failureCounts(): Record<string, number> {
  const db = new Database(process.env.SWITCHYARD_E2E_DB!, { readonly: true });
  const rows = db.prepare("SELECT key, sum(n) AS n FROM login_failures GROUP BY key").all() as {
    key: string;
    n: number;
  }[];
  db.close();
  return Object.fromEntries(rows.map((r) => [r.key, r.n]));
}

const login = (api: APIRequestContext, baseURL: string, username: string, password: string) =>
  api.post("/api/auth/login", { headers: { Origin: baseURL }, data: { username, password } });

// Every request here comes from this runner's one address: give back the address's count this spec used, so sign-ins
// by the specs after it are not refused for "your address" (the account counts stay).
test.afterAll(() => {
  const db = new Database(process.env.SWITCHYARD_E2E_DB!);
  db.prepare("DELETE FROM login_failures WHERE key LIKE 'i:%'").run();
  db.close();
});

test("a sign-in from /login?next=%2F%09%2Fevil.example (and /.//evil.example) lands on the dashboard's own origin", async ({
  browser,
  baseURL,
}) => {
  const name = userName("next");
  await createUser(baseURL!, name, "viewer");
  for (const next of ["%2F%09%2Fevil.example", "%2F.%2F%2Fevil.example"]) {
    const context = await signedOut(browser, baseURL!);
    const page = await context.newPage();
    await page.goto(`/login?next=${next}`);
    await page.getByLabel("Username").fill(name);
    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("current-user")).toHaveText(`${name} (viewer)`);
    expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
    expect(new URL(page.url()).pathname).toBe("/");
    await context.close();
  }
});

test("40 wrong passwords for one account sent at once: exactly 5 answers of 401, the other 35 are 429", async ({
  baseURL,
}) => {
  const name = userName("burst");
  await createUser(baseURL!, name, "viewer");
  const api = await anonymous(baseURL!);
  const all = await Promise.all(
    Array.from({ length: 40 }, (_, i) => login(api, baseURL!, name, `wrong password ${i}`)),
  );
  const statuses = all.map((r) => r.status());
  expect(statuses.filter((s) => s === 401)).toHaveLength(5);
  expect(statuses.filter((s) => s === 429)).toHaveLength(35);
  await api.dispose();
});

test("after someone locks an account, a browser that signed in to it before still signs in; a fresh one gets 429", async ({
  browser,
  baseURL,
}) => {
  const name = userName("owner");
  await createUser(baseURL!, name, "operator");
  const known = await signedOut(browser, baseURL!);
  expect((await login(known.request, baseURL!, name, E2E_PASSWORD)).status()).toBe(200);
  const device = (await known.cookies()).find((c) => c.name === "sy_device");
  expect(device).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/api/auth/login" });
  expect(device!.expires * 1000).toBeGreaterThan(Date.now() + 170 * 86_400_000);

  const attacker = await anonymous(baseURL!);
  for (let i = 0; i < 5; i++) expect((await login(attacker, baseURL!, name, `guess ${i}`)).status()).toBe(401);
  const locked = await login(attacker, baseURL!, name, E2E_PASSWORD);
  expect(locked.status()).toBe(429);
  expect(((await locked.json()) as { error: string }).error).toMatch(/for this account/);

  const again = await login(known.request, baseURL!, name, E2E_PASSWORD);
  expect(again.status(), await again.text()).toBe(200);
  const page = await known.newPage();
  await page.goto("/");
  await expect(page.getByTestId("current-user")).toHaveText(`${name} (operator)`);

  const fresh = await signedOut(browser, baseURL!);
  expect((await login(fresh.request, baseURL!, name, E2E_PASSWORD)).status()).toBe(429);
  await Promise.all([known.close(), fresh.close(), attacker.dispose()]);
});

test("a weak password for a new user is refused with the reason, on the form and over HTTP", async ({
  browser,
  baseURL,
}) => {
  const admin = await adminApi(baseURL!);
  const name = userName("weak");
  const { path } = await adminMutation<{ path: string }>(admin, "users.invite", { username: name, role: "viewer" });
  await admin.dispose();
  const reason = "too easy to guess: This is similar to a commonly used password.";

  const api = await anonymous(baseURL!);
  const refused = await api.post("/api/auth/setup", {
    headers: { Origin: baseURL! },
    data: { secret: path.split("#")[1], password: "password1234" },
  });
  expect(refused.status()).toBe(400);
  expect(await refused.json()).toEqual({ error: `password: ${reason}` });
  await api.dispose();

  const context = await signedOut(browser, baseURL!);
  const page = await context.newPage();
  await page.goto(path);
  await expect(page.getByRole("heading", { name: `Welcome, ${name}` })).toBeVisible();
  const field = page.getByLabel("Password (at least 12 characters)");
  await field.fill("password1234");
  await page.getByLabel("Repeat password").fill("password1234");
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText(reason);
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await field.fill("short");
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("at least 12 characters");
  // The refusals spent nothing: the same link sets a good password.
  await field.fill(E2E_PASSWORD);
  await page.getByLabel("Repeat password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByTestId("current-user")).toHaveText(`${name} (viewer)`);
  await context.close();
});

test("X-Forwarded-For and X-Forwarded-Host from a peer that is not a trusted proxy are ignored", async ({
  baseURL,
}) => {
  const api = await anonymous(baseURL!);
  // The forged host does not make a cross-origin post same-origin.
  const crossOrigin = await api.post("/api/auth/login", {
    headers: { Origin: "http://evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http" },
    data: { username: "nobody", password: "nothing" },
  });
  expect(crossOrigin.status()).toBe(403);
  expect(await crossOrigin.json()).toEqual({ error: "cross-origin request refused" });

  // The forged client address is not the one counted: the socket's is.
  const name = userName("xff");
  await createUser(baseURL!, name, "viewer");
  const before = failureCounts();
  const wrong = await api.post("/api/auth/login", {
    headers: { Origin: baseURL!, "X-Forwarded-For": "1.2.3.4" },
    data: { username: name, password: "a wrong password" },
  });
  expect(wrong.status()).toBe(401);
  const after = failureCounts();
  expect(after[`a:${name}`]).toBe(1);
  expect(after["i:1.2.3.4"]).toBeUndefined();
  const socket = (counts: Record<string, number>) => (counts["i:127.0.0.1"] ?? 0) + (counts["i:::1"] ?? 0);
  expect(socket(after)).toBe(socket(before) + 1);
  await api.dispose();
});
