import { expect, test } from "@playwright/test";

// Runs first (file order) against the fresh database of this run.
test("a new user with no telemetry sees how to send some", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "No telemetry yet" })).toBeVisible();
  await expect(page.getByText("/api/ingest").first()).toBeVisible();
  await expect(page.getByTestId("kpi-hit-rate")).toHaveText("—");
});

test("a browser without a session lands on the sign-in page, not on data", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("heading", { name: "Sign in to Switchyard" })).toBeVisible();
  await expect(page.getByText("one-time setup link")).toBeVisible();
  await context.close();
});
