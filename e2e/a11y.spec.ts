import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { summarize, WCAG } from "./fixtures/axe";
import { consolePages, seedPages, type Seeded } from "./fixtures/pages";

// axe-core's WCAG 2 A/AA rules over every page in both colour schemes: any violating element fails the run.

let seeded: Seeded;

// Every page, loaded and analysed: 1.1–1.7 minutes per theme on an idle 2-core machine, over 2 on a loaded CI run.
test.describe.configure({ timeout: 240_000 });

test.beforeAll(async ({ request, baseURL }) => {
  seeded = await seedPages(request, baseURL!);
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`every page passes axe's WCAG 2 A/AA rules in the ${colorScheme} theme`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, colorScheme, storageState: process.env.SWITCHYARD_E2E_STATE });
    const page = await context.newPage();
    const found: string[] = [];
    for (const { path } of consolePages(seeded)) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      // Wait for the data the page asked for, so the check sees the filled page and not its skeleton.
      await page.waitForLoadState("networkidle");
      const { violations } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
      found.push(...summarize(violations).map((v) => `${path}: ${v}`));
    }
    const login = await browser.newContext({ baseURL, colorScheme, storageState: { cookies: [], origins: [] } });
    const lp = await login.newPage();
    await lp.goto("/login");
    await expect(lp.getByRole("heading", { level: 1 })).toBeVisible();
    found.push(
      ...summarize((await new AxeBuilder({ page: lp }).withTags(WCAG).analyze()).violations).map((v) => `/login: ${v}`),
    );
    await login.close();
    await context.close();
    expect(found).toEqual([]);
  });
}
