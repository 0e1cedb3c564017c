import { expect, test } from "@playwright/test";

// Runs first (file order) against the fresh database of this run.
test("a new user with no telemetry sees how to send some", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "No telemetry yet" })).toBeVisible();
  await expect(page.getByText("/api/ingest").first()).toBeVisible();
  await expect(page.getByTestId("kpi-hit-rate")).toHaveText("—");
});
