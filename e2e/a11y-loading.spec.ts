import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { summarize, WCAG } from "./fixtures/axe";
import { consolePages, seedPages, type Seeded } from "./fixtures/pages";

// axe-core's WCAG 2 A/AA rules over every page's loading state. Apart from the themes' spec (a11y.spec.ts) so the two
// run side by side: with a PostgreSQL server this one runs in the "postgresql" project (playwright.config.ts), else
// beside the other on SQLite.

let seeded: Seeded;

test.describe.configure({ timeout: 240_000 });

test.beforeAll(async ({ request, baseURL }) => {
  seeded = await seedPages(request, baseURL!);
});

// The loading state too, held there: every data request is left unanswered while the check runs (a check of the
// filled pages could catch one still loading only now and then, and failed then).
test("every page's loading state passes axe's WCAG 2 A/AA rules", async ({ browser, baseURL }, testInfo) => {
  const context = await browser.newContext({ baseURL, storageState: testInfo.project.use.storageState });
  const page = await context.newPage();
  await page.route("**/api/trpc/**", () => {});
  const found: string[] = [];
  for (const { path } of consolePages(seeded)) {
    await page.goto(path);
    await expect(page.locator('[aria-busy="true"], h1').first()).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
    found.push(...summarize(violations).map((v) => `${path} (loading): ${v}`));
  }
  await context.close();
  expect(found).toEqual([]);
});
