import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { summarize, WCAG } from "./fixtures/axe";
import { consolePages, seedPages, type Seeded } from "./fixtures/pages";

// axe-core's WCAG 2 A/AA rules over every page's loading state. Apart from the themes' spec (a11y.spec.ts) so the two
// run side by side: with a PostgreSQL server this one runs in the "postgresql" project (playwright.config.ts), else
// beside the other on SQLite.

let seeded: Seeded;

// 17-18 s alone on an idle machine; in CI, beside the other projects on two cores, 56 s when it was written, 3.0 min
// later, and twice over 4 min in one run. Each page's time is printed as it is checked, so a slow page shows in the
// log even when the test times out.
test.describe.configure({ timeout: 480_000 });

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
    const t0 = Date.now();
    await page.goto(path);
    await expect(page.locator('[aria-busy="true"], h1').first()).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
    found.push(...summarize(violations).map((v) => `${path} (loading): ${v}`));
    console.log(`a11y-loading: ${path} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  await context.close();
  expect(found).toEqual([]);
});
