import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { adminApi, adminMutation, createUser, E2E_PASSWORD, signedInAs, signedOut } from "./fixtures/auth";
import { uniq } from "./fixtures/telemetry";

const workerUp = (id: string) => ({
  id,
  kind: "worker.up",
  ts: Date.now(),
  worker_id: id,
  role: "aggregated",
  model: "m",
  kv_total_blocks: 64,
  block_size: 16,
});

test("signed out: pages go to sign-in, the API answers 401, health and ingest stay reachable", async ({
  browser,
  baseURL,
}) => {
  const context = await signedOut(browser, baseURL!);
  const page = await context.newPage();
  await page.goto("/workers?range=1h");
  await expect(page).toHaveURL(/\/login\?next=%2Fworkers%3Frange%3D1h$/);
  await expect(page.getByRole("heading", { name: "Sign in to Switchyard" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
  expect(
    (
      await context.request.get("/api/trpc/overview.summary?input=%7B%22json%22%3A%7B%22preset%22%3A%225m%22%7D%7D")
    ).status(),
  ).toBe(401);
  expect((await context.request.get("/api/sessions/x/export")).status()).toBe(401);
  expect((await context.request.get("/api/health")).status()).toBe(200);
  await context.close();
});

test("sign in with the form, see who you are, sign out; a wrong password says so", async ({ browser, baseURL }) => {
  const name = uniq("olga").toLowerCase();
  await createUser(baseURL!, name, "operator");
  const context = await signedOut(browser, baseURL!);
  const page = await context.newPage();
  await page.goto("/workers");
  await page.getByLabel("Username").fill(name);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("wrong username or password");
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/workers$/);
  await expect(page.getByTestId("current-user")).toHaveText(`${name} (operator)`);
  await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  await context.close();
});

test("repeated wrong passwords lock the account with a clear message", async ({ browser, baseURL }) => {
  const name = uniq("rita").toLowerCase();
  await createUser(baseURL!, name, "viewer");
  const context = await signedOut(browser, baseURL!);
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Username").fill(name);
  for (let i = 0; i < 5; i++) {
    await page.getByLabel("Password").fill(`wrong-${i}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("wrong username or password");
  }
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText(
    /Too many failed sign-in attempts for this account\. Try again in \d+ minutes?\./,
  );
  await context.close();
});

test("an expired session is sent back to sign-in", async ({ browser, baseURL }) => {
  const name = uniq("exp").toLowerCase();
  await createUser(baseURL!, name, "viewer");
  const context = await signedInAs(browser, baseURL!, name);
  const page = await context.newPage();
  await page.goto("/");
  await expect(page.getByTestId("current-user")).toContainText(name);
  const db = new Database(process.env.SWITCHYARD_E2E_DB!);
  db.prepare("UPDATE auth_sessions SET expires_at = ? WHERE user_id = (SELECT id FROM users WHERE username = ?)").run(
    Date.now() - 1,
    name,
  );
  db.close();
  await page.goto("/sessions");
  await expect(page).toHaveURL(/\/login\?next=%2Fsessions$/);
  expect((await context.request.get("/api/trpc/users.me")).status()).toBe(401);
  await context.close();
});

test("a user invited while the admin page's list is still loading shows up in it", async ({ page }) => {
  // The list's first load is read by the server before the invite and reaches the page after it: the order that left
  // the new row out until the next reload (the refresh after a write got the load already in flight).
  const name = uniq("lena").toLowerCase();
  let invited!: () => void;
  const inviteDone = new Promise<void>((resolve) => (invited = resolve));
  let held = 0;
  await page.route(/\/api\/trpc\/[^?]*users\.list/, async (route) => {
    if (held++ > 0) return route.continue();
    const before = await route.fetch();
    await inviteDone;
    await route.fulfill({ response: before });
  });
  await page.goto("/admin");
  const invite = page.getByRole("form", { name: "Invite a user" });
  await expect(page.getByText("Loading users…")).toBeVisible();
  await invite.getByLabel("Username").fill(name);
  await invite.getByRole("button", { name: "Invite" }).click();
  // The invite has been answered and the page has shown its link (the refresh after it has been asked for): only now
  // does the list's first load reach the page.
  await expect(page.getByTestId("invite-link")).toBeVisible();
  invited();
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("invited");
  expect(held).toBeGreaterThanOrEqual(2);
});

test("an admin invites a viewer from the admin page; the link works once; a viewer cannot publish or reach admin", async ({
  page,
  browser,
  baseURL,
}) => {
  const name = uniq("vince").toLowerCase();
  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  const invite = page.getByRole("form", { name: "Invite a user" });
  await invite.getByLabel("Username").fill(name);
  await invite.getByLabel("Role").selectOption("viewer");
  await invite.getByRole("button", { name: "Invite" }).click();
  const link = (await page.getByTestId("invite-link").textContent())!;
  expect(link).toMatch(/\/setup#invite_/);
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("invited");

  const context = await signedOut(browser, baseURL!);
  const guest = await context.newPage();
  await guest.goto(link);
  await expect(guest.getByRole("heading", { name: `Welcome, ${name}` })).toBeVisible();
  await guest.getByLabel("Password (at least 12 characters)").fill(E2E_PASSWORD);
  await guest.getByLabel("Repeat password").fill(E2E_PASSWORD);
  await guest.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(guest.getByTestId("current-user")).toHaveText(`${name} (viewer)`);

  // A viewer cannot publish a policy over the API (same origin, signed in) nor open the admin page.
  const publish = await context.request.post("/api/trpc/policies.publish", {
    headers: { Origin: baseURL! },
    data: {
      json: {
        kind: "frontend",
        document: { strip_anthropic_preamble: true },
        baseVersion: null,
        comment: "",
        author: name,
      },
    },
  });
  expect(publish.status()).toBe(403);
  await guest.goto("/admin");
  await expect(guest).toHaveURL(/\/$/);

  const reuse = await signedOut(browser, baseURL!);
  const again = await reuse.newPage();
  await again.goto(link);
  await expect(again.getByRole("alert").filter({ hasText: /\S/ })).toHaveText(
    "this link is invalid, expired or already used",
  );
  await reuse.close();

  // Disabling the account signs the viewer out at once.
  await page.reload();
  await page.getByRole("button", { name: `Disable ${name}` }).click();
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("disabled");
  await guest.goto("/workers");
  await expect(guest).toHaveURL(/\/login/);
  await context.close();
});

test("tokens: an ingest token made on the admin page ingests until revoked; a read token reads but cannot change", async ({
  page,
  request,
  baseURL,
}) => {
  const name = uniq("sender");
  await page.goto("/admin");
  const form = page.getByRole("form", { name: "Create a token" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Scope").selectOption("ingest");
  await form.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("new-token").textContent())!;
  expect(token).toMatch(/^sy_ingest_/);
  const ingest = (id: string) =>
    request.post("/api/ingest", {
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-ndjson" },
      data: JSON.stringify(workerUp(id)),
    });
  expect((await ingest(uniq("tok-w"))).status()).toBe(200);
  await page.reload();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).not.toContainText("never");
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await expect(row).toContainText("revoked");
  expect((await ingest(uniq("tok-w"))).status()).toBe(401);

  const api = await adminApi(baseURL!);
  const read = await adminMutation<{ token: string }>(api, "tokens.create", { name: uniq("script"), scope: "read" });
  await api.dispose();
  const asRead = { Authorization: `Bearer ${read.token}` };
  const list = await request.get(
    `/api/trpc/workers.list?input=${encodeURIComponent(JSON.stringify({ json: { preset: "15m" } }))}`,
    { headers: asRead },
  );
  expect(list.status()).toBe(200);
  const publish = await request.post("/api/trpc/policies.publish", {
    headers: asRead,
    data: { json: { kind: "frontend", document: {}, baseVersion: null } },
  });
  expect(publish.status()).toBe(403);
  expect(
    (
      await request.post("/api/ingest", {
        headers: { ...asRead, "Content-Type": "application/x-ndjson" },
        data: JSON.stringify(workerUp(uniq("w"))),
      })
    ).status(),
  ).toBe(401);
});

test("a cross-origin mutation is refused and pages carry the security headers", async ({ page, request, baseURL }) => {
  const res = await request.post("/api/trpc/tokens.create", {
    headers: { Origin: "https://evil.example" },
    data: { json: { name: "x", scope: "admin" } },
  });
  expect(res.status()).toBe(403);
  expect(await res.json()).toEqual({ error: "cross-origin request refused" });
  const logout = await request.post("/api/auth/logout", {
    headers: { Origin: "https://evil.example" },
    maxRedirects: 0,
  });
  expect(logout.status()).toBe(403);

  const response = await page.goto("/");
  const h = response!.headers();
  expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(h["content-security-policy"]).not.toContain("unsafe-eval");
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("same-origin");
  const api = await request.get("/api/health");
  expect(api.headers()["content-security-policy"]).toContain("default-src 'none'");
  expect(api.headers()["x-content-type-options"]).toBe("nosniff");
  await expect(page.getByTestId("current-user")).toBeVisible();
  expect(baseURL).toBeTruthy();
});
