import { expect, test, type Page } from "@playwright/test";
import { postEvents, uniq } from "./fixtures/telemetry";

/** A session of `turns` model calls by `harness`, its last one finishing `agoMs` ago. */
function session(sid: string, harness: string, turns: number, agoMs: number): object[] {
  const end = Date.now() - agoMs;
  return Array.from({ length: turns }, (_, i) => {
    const at = end - (turns - i) * 5_000;
    return {
      id: `${sid}-r${i}`,
      kind: "request",
      ts: at + 1_000,
      request_id: `${sid}-r${i}`,
      session_id: sid,
      harness,
      api: "messages",
      model: "m",
      arrived_at: at,
      first_token_at: at + 200,
      finished_at: at + 1_000,
      input_tokens: 1_000,
      cached_tokens: 500,
      output_tokens: 20,
      status: "ok",
    };
  });
}

const sessionRows = (page: Page) =>
  page.getByRole("table", { name: "Sessions" }).getByRole("rowgroup").nth(1).getByRole("row");
const turnsHeader = (page: Page) => page.getByRole("columnheader", { name: /^Turns/ });

test("sessions list: filter and sort live in the URL, survive a reload, and the back button undoes them", async ({
  page,
  request,
}) => {
  const p = uniq("url");
  const [alpha, beta] = [`${p}-alpha`, `${p}-beta`];
  // Default order (last activity, newest first) is A, B; by turns it is B, A. C is the other harness.
  await postEvents(request, [
    ...session(`${p}-A`, alpha, 1, 30_000),
    ...session(`${p}-B`, alpha, 3, 90_000),
    ...session(`${p}-C`, beta, 2, 60_000),
  ]);

  await page.goto(`/sessions?range=1h&q=${encodeURIComponent(p)}`);
  await expect(page.getByRole("searchbox", { name: "Session id" })).toHaveValue(p);
  await expect(sessionRows(page)).toHaveText([new RegExp(`^${p}-A`), new RegExp(`^${p}-C`), new RegExp(`^${p}-B`)], {
    timeout: 30_000,
  });

  await page.getByRole("combobox", { name: "Harness" }).selectOption(alpha);
  await expect(sessionRows(page)).toHaveText([new RegExp(`^${p}-A`), new RegExp(`^${p}-B`)]);
  await turnsHeader(page).getByRole("button").click();
  await expect(turnsHeader(page)).toHaveAttribute("aria-sort", "descending");
  await expect(sessionRows(page)).toHaveText([new RegExp(`^${p}-B`), new RegExp(`^${p}-A`)]);
  expect(new URL(page.url()).searchParams.get("harness")).toBe(alpha);
  expect(new URL(page.url()).searchParams.get("sort")).toBe("turns");

  // A reload (or the link shared) shows the same list.
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Harness" })).toHaveValue(alpha);
  await expect(turnsHeader(page)).toHaveAttribute("aria-sort", "descending");
  await expect(sessionRows(page)).toHaveText([new RegExp(`^${p}-B`), new RegExp(`^${p}-A`)]);

  // Back: first the sort goes, then the filter.
  await page.goBack();
  await expect(turnsHeader(page)).not.toHaveAttribute("aria-sort");
  await expect(page.getByRole("columnheader", { name: /^Last activity/ })).toHaveAttribute("aria-sort", "descending");
  await expect(sessionRows(page)).toHaveText([new RegExp(`^${p}-A`), new RegExp(`^${p}-B`)]);
  await page.goBack();
  await expect(page.getByRole("combobox", { name: "Harness" })).toHaveValue("");
  await expect(sessionRows(page)).toHaveText([new RegExp(`^${p}-A`), new RegExp(`^${p}-C`), new RegExp(`^${p}-B`)]);
  await expect(page.getByRole("searchbox", { name: "Session id" })).toHaveValue(p);
});
