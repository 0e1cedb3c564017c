import { expect, test, type ConsoleMessage } from "@playwright/test";
import { formatTime } from "../components/format";
import { signedOut } from "./fixtures/auth";
import { consolePages, seedPages } from "./fixtures/pages";

test("every page has its own tab title, a favicon, and no failed request in the console", async ({
  page,
  request,
  baseURL,
}) => {
  const seeded = await seedPages(request, baseURL!);
  const errors: string[] = [];
  const notFound: string[] = [];
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() === "error") errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() === 404) notFound.push(r.url());
  });
  for (const { path, title } of consolePages(seeded)) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  }
  const icon = page.locator('head link[rel="icon"]').first();
  const href = await icon.getAttribute("href");
  expect(href).not.toBeNull();
  const served = await request.get(href!);
  expect(served.status()).toBe(200);
  expect(served.headers()["content-type"]).toContain("image/");
  expect(notFound).toEqual([]);
  expect(errors).toEqual([]);
});

test("the sign-in page has its tab title too", async ({ browser, baseURL }) => {
  const context = await signedOut(browser, baseURL!);
  const page = await context.newPage();
  await page.goto("/login");
  await expect(page).toHaveTitle("Sign in · Switchyard");
  await context.close();
});

test("the worker page's lost routing decisions and the routing page's decisions write times the same way", async ({
  page,
  request,
  baseURL,
}) => {
  const seeded = await seedPages(request, baseURL!);
  await page.goto(`/workers/${seeded.worker}?range=15m`);
  const lost = page.getByRole("table", { name: "Latest routing decisions lost" });
  await expect(lost.getByRole("link", { name: seeded.winner, exact: true })).toBeVisible();
  const lostTime = (await lost.getByRole("row").nth(1).getByRole("cell").first().textContent())!.trim();

  await page.goto("/routing?range=15m");
  const decisions = page.getByRole("table", { name: "Routing decisions" });
  const row = decisions.getByRole("row").filter({ hasText: seeded.winner }).first();
  await expect(row).toBeVisible();
  const routingTime = (await row.getByRole("cell").nth(1).textContent())!.trim();

  // 24-hour "HH:MM:SS" in both tables (a date is prefixed only for another day), never "3:28:51 AM".
  expect(lostTime).toMatch(/^(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}$/);
  // It is the same decision (the worker lost it to the winner), so both show the same text.
  expect(routingTime).toBe(lostTime);
});

test("times are written in the viewer's time zone, and the range picker names that zone", async ({
  browser,
  request,
  baseURL,
}) => {
  const seeded = await seedPages(request, baseURL!);
  const timezoneId = "Australia/Adelaide";
  const context = await browser.newContext({ baseURL, timezoneId, storageState: process.env.SWITCHYARD_E2E_STATE });
  const page = await context.newPage();
  await page.goto(`/workers/${seeded.worker}?range=15m`);
  await expect(page.getByRole("group", { name: "Time range" }).getByTestId("time-zone")).toHaveText(timezoneId);
  const lost = page.getByRole("table", { name: "Latest routing decisions lost" });
  const row = lost.getByRole("row").filter({ has: page.getByRole("link", { name: seeded.winner, exact: true }) });
  // Adelaide is UTC+9:30 or +10:30: the half hour shows the viewer's zone is applied, not the server's or UTC.
  await expect(row.getByRole("cell").first()).toHaveText(formatTime(seeded.lostAt, Date.now(), timezoneId));
  await context.close();
});
