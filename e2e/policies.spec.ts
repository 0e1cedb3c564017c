import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { adminApi, adminMutation } from "./fixtures/auth";
import { uniq } from "./fixtures/telemetry";

type Latest = { version: number; document: Record<string, unknown> } | null;

/** The latest version of a kind as the signed-in browser sees it. */
async function latest(request: APIRequestContext, kind: string): Promise<Latest> {
  const res = await request.get(
    `/api/trpc/policies.latest?input=${encodeURIComponent(JSON.stringify({ json: { kind } }))}`,
  );
  expect(res.status(), `policies.latest: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { result: { data: { json: Latest } } }).result.data.json;
}

function panel(page: Page, title: string) {
  return page.getByRole("tabpanel", { name: new RegExp(`^${title}`) });
}

test("an operator turns preamble stripping on, reviews the change and publishes it with a comment", async ({
  page,
}) => {
  const request = page.request;
  const before = await latest(request, "frontend");
  const was = Boolean(before?.document.strip_anthropic_preamble);
  const next = (before?.version ?? 0) + 1;
  const comment = uniq("strip the billing header");

  await page.goto("/policies?kind=frontend");
  await expect(page.getByRole("tab", { name: /^Frontend/ })).toHaveAttribute("aria-selected", "true");
  const fe = panel(page, "Frontend");
  if (!before)
    await expect(fe.getByText("Nothing published yet: the form starts from the built-in defaults.")).toBeVisible();
  const strip = fe.getByRole("checkbox", { name: "Strip the billing preamble" });
  await expect(strip).toBeChecked({ checked: was });
  await strip.setChecked(!was);

  await fe.getByRole("button", { name: "Review changes" }).click();
  const changes = fe.getByRole("table", { name: "Changes to publish" });
  await expect(changes.getByRole("row")).toHaveCount(2);
  await expect(changes.getByRole("row").nth(1)).toContainText(
    new RegExp(`strip_anthropic_preamble\\s*${was}\\s*→\\s*${!was}`),
  );
  await fe.getByLabel("Comment").fill(comment);
  await fe.getByRole("button", { name: `Publish v${next}` }).click();
  await expect(fe.getByText(`Published v${next}.`)).toBeVisible();

  const row = fe.getByTestId(`frontend-version-${next}`);
  await expect(row).toContainText(`v${next}`);
  await expect(row).toContainText(comment);
  await expect(row).toContainText("latest");
  await expect(page.getByRole("tab", { name: /^Frontend/ })).toContainText(`v${next}`);
  expect((await latest(request, "frontend"))?.document.strip_anthropic_preamble).toBe(!was);

  // Another tab's URL shows its own form; the published one survives a reload.
  await page.getByRole("tab", { name: /^Routing/ }).click();
  await expect(page).toHaveURL(/kind=routing/);
  await page.reload();
  await page.getByRole("tab", { name: /^Frontend/ }).click();
  await expect(panel(page, "Frontend").getByRole("checkbox", { name: "Strip the billing preamble" })).toBeChecked({
    checked: !was,
  });
});

test("a scale-down threshold at or above scale-up is an error while typing and blocks publishing", async ({ page }) => {
  await page.goto("/policies?kind=autoscaling");
  const form = panel(page, "Autoscaling");
  const decode = form.getByRole("group", { name: "Decode" });
  const down = decode.getByLabel("KV utilization scale-down");
  const review = form.getByRole("button", { name: "Review changes" });
  await expect(review).toBeEnabled();

  await down.fill("1");
  await expect(decode.getByText(/must be below the scale-up threshold/)).toBeVisible();
  await expect(down).toHaveAttribute("aria-invalid", "true");
  await expect(review).toBeDisabled();

  await down.fill("0.45");
  await expect(decode.getByText(/must be below the scale-up threshold/)).toHaveCount(0);
  await expect(review).toBeEnabled();
  await review.click();
  // The value stays a number: the diff shows 0.45, not the string "0.45".
  const row = form
    .getByRole("table", { name: "Changes to publish" })
    .getByRole("row", { name: /decode\.kv_scale_down/ });
  await expect(row).toContainText("0.45");
  await expect(row).not.toContainText('"0.45"');
});

test("retention rules are added, duplicated and reordered, and the order is published", async ({ page }) => {
  const request = page.request;
  const before = await latest(request, "retention");
  const next = (before?.version ?? 0) + 1;
  await page.goto("/policies?kind=retention");
  const form = panel(page, "Retention");
  const rules = form.getByRole("listitem", { name: /^Rule \d+$/ });
  await expect(form.getByTestId("retention-source")).toBeVisible();
  const n = await rules.count();
  const rule = (i: number) => form.getByRole("listitem", { name: `Rule ${i}`, exact: true });
  const first = await rule(1).getByLabel("Name").inputValue();

  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(rules).toHaveCount(n + 1);
  await expect(rule(n + 1).getByLabel("Name")).toHaveValue("new-rule");
  await rule(n + 1)
    .getByLabel("Prefix segment")
    .selectOption("conversation");
  await rule(n + 1)
    .getByLabel("TTL (s)")
    .fill("600");

  await form.getByRole("button", { name: "Duplicate rule 1", exact: true }).click();
  await expect(rules).toHaveCount(n + 2);
  await expect(rule(2).getByLabel("Name")).toHaveValue(`${first}-copy`);

  await form.getByRole("button", { name: `Move rule ${n + 2} up` }).click();
  await form.getByRole("button", { name: "Move rule 2 down" }).click();
  await form.getByRole("button", { name: "Move rule 1 down" }).click();
  await expect(rule(1).getByLabel("Name")).toHaveValue(`${first}-copy`);
  await expect(rule(2).getByLabel("Name")).toHaveValue(first);

  // A duplicate name is refused at the field.
  await rule(1).getByLabel("Name").fill(first);
  await expect(rule(2).getByText("duplicates the name of rule 0")).toBeVisible();
  await expect(form.getByRole("button", { name: "Review changes" })).toBeDisabled();
  await rule(1).getByLabel("Name").fill(`${first}-copy`);
  await expect(form.getByRole("button", { name: "Review changes" })).toBeEnabled();

  await form.getByRole("button", { name: "Review changes" }).click();
  await form.getByLabel("Comment").fill("reorder rules");
  await form.getByRole("button", { name: `Publish v${next}` }).click();
  await expect(form.getByText(`Published v${next}.`)).toBeVisible();
  const doc = (await latest(request, "retention"))!.document as {
    rules: { name: string; ttl_seconds: number | null; match: { segment: string } }[];
  };
  expect(doc.rules.map((r) => r.name).slice(0, 2)).toEqual([`${first}-copy`, first]);
  const added = doc.rules.find((r) => r.name === "new-rule");
  expect(added).toMatchObject({ ttl_seconds: 600, match: { segment: "conversation" } });

  await page.reload();
  await expect(rule(1).getByLabel("Name")).toHaveValue(`${first}-copy`);
  await expect(rules).toHaveCount(n + 2);
});

test("a retention rule offloads to a lower tier and prefetches on resume; the frontend sets the prefetch lead", async ({
  page,
}) => {
  const request = page.request;
  const before = await latest(request, "retention");
  const next = (before?.version ?? 0) + 1;
  await page.goto("/policies?kind=retention");
  const form = panel(page, "Retention");
  await expect(form.getByTestId("retention-source")).toBeVisible();
  const rules = form.getByRole("listitem", { name: /^Rule \d+$/ });
  const n = await rules.count();
  await form.getByRole("button", { name: "Add rule" }).click();
  const rule = form.getByRole("listitem", { name: `Rule ${n + 1}`, exact: true });
  await rule.getByLabel("Name").fill("offload-conversation");
  await rule.getByLabel("Offload to").selectOption("host");
  const keep = rule.getByLabel("Keep offloaded for (s)");
  await keep.fill(String(8 * 24 * 3600));
  await expect(rule.getByText("must be at most 7 days")).toBeVisible();
  await expect(keep).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByRole("button", { name: "Review changes" })).toBeDisabled();
  await keep.fill("1800");
  await rule.getByRole("checkbox", { name: "Prefetch on resume" }).check();
  await form.getByRole("button", { name: "Review changes" }).click();
  await form.getByLabel("Comment").fill("offload conversation to host memory");
  await form.getByRole("button", { name: `Publish v${next}` }).click();
  await expect(form.getByText(`Published v${next}.`)).toBeVisible();
  const doc = (await latest(request, "retention"))!.document as {
    rules: { name: string; offload: unknown; prefetch_on_resume: boolean }[];
  };
  expect(doc.rules.find((r) => r.name === "offload-conversation")).toMatchObject({
    offload: { to: "host", ttl_seconds: 1800 },
    prefetch_on_resume: true,
  });

  // The published values come back into the form; the rule is removed again so later specs start from no offload.
  await page.reload();
  const again = form.getByRole("listitem", { name: `Rule ${n + 1}`, exact: true });
  await expect(again.getByLabel("Offload to")).toHaveValue("host");
  await expect(again.getByLabel("Keep offloaded for (s)")).toHaveValue("1800");
  await form.getByRole("button", { name: `Remove rule ${n + 1}` }).click();
  await form.getByRole("button", { name: "Review changes" }).click();
  await form.getByLabel("Comment").fill("no offload");
  await form.getByRole("button", { name: `Publish v${next + 1}` }).click();
  await expect(form.getByText(`Published v${next + 1}.`)).toBeVisible();

  const fb = await latest(request, "frontend");
  await page.goto("/policies?kind=frontend");
  const fe = panel(page, "Frontend");
  const prefetch = fe.getByRole("group", { name: "KV prefetch" });
  const lead = prefetch.getByLabel("Lead time (ms)");
  await expect(lead).toHaveValue(String((fb?.document.prefetch as { lead_ms?: number } | undefined)?.lead_ms ?? 300));
  await lead.fill("70000");
  await expect(prefetch.getByText("must be between 0 and 60000")).toBeVisible();
  await expect(fe.getByRole("button", { name: "Review changes" })).toBeDisabled();
  await lead.fill("750");
  await prefetch.getByRole("checkbox", { name: "Prefetch before tool results" }).check();
  await fe.getByRole("button", { name: "Review changes" }).click();
  await expect(fe.getByRole("table", { name: "Changes to publish" })).toContainText("prefetch.lead_ms");
  await fe.getByLabel("Comment").fill("prefetch 750 ms ahead");
  await fe.getByRole("button", { name: `Publish v${(fb?.version ?? 0) + 1}` }).click();
  await expect(fe.getByText(`Published v${(fb?.version ?? 0) + 1}.`)).toBeVisible();
  expect((await latest(request, "frontend"))!.document.prefetch).toEqual({ enabled: true, lead_ms: 750 });
});

test("two operators edit the same version: the second sees the conflict, keeps their edits and re-applies them", async ({
  context,
}) => {
  const a = await context.newPage();
  const b = await context.newPage();
  const request = a.request;
  const before = await latest(request, "routing");
  const base = before?.version ?? 0;
  await a.goto("/policies?kind=routing");
  await b.goto("/policies?kind=routing");
  const formA = panel(a, "Routing");
  const formB = panel(b, "Routing");
  await expect(formA.getByTestId("routing-source")).toBeVisible();
  await expect(formB.getByTestId("routing-source")).toBeVisible();

  // B starts editing first; A publishes meanwhile.
  await formB.getByLabel("Temperature").fill("0.5");
  await formA.getByLabel("Overlap credit").fill("2.5");
  await formA.getByRole("button", { name: "Review changes" }).click();
  await formA.getByLabel("Comment").fill("more overlap credit");
  await formA.getByRole("button", { name: `Publish v${base + 1}` }).click();
  await expect(formA.getByText(`Published v${base + 1}.`)).toBeVisible();

  await formB.getByRole("button", { name: "Review changes" }).click();
  await formB.getByLabel("Comment").fill("sample a little");
  await formB.getByRole("button", { name: `Publish v${base + 1}` }).click();
  const conflict = formB
    .getByRole("alert")
    .filter({ has: b.getByRole("heading", { name: `Conflict: v${base + 1} was published while you were editing` }) });
  await expect(conflict).toBeVisible();
  await expect(conflict.getByRole("table", { name: "Their changes" })).toContainText("overlap_credit");
  await expect(conflict.getByRole("table", { name: "Their changes" })).toContainText("2.5");
  await expect(conflict.getByRole("table", { name: "Your edits" })).toContainText("temperature");
  await expect(conflict.getByRole("table", { name: "Your edits" })).toContainText("0.5");
  await expect(conflict).toContainText("more overlap credit");

  await conflict.getByRole("button", { name: `Re-apply my changes on top of v${base + 1}` }).click();
  const changes = formB.getByRole("table", { name: "Changes to publish" });
  await expect(changes.getByRole("row")).toHaveCount(2);
  await expect(changes).toContainText("temperature");
  await expect(formB.getByLabel("Comment")).toHaveValue("sample a little");
  await formB.getByRole("button", { name: `Publish v${base + 2}` }).click();
  await expect(formB.getByText(`Published v${base + 2}.`)).toBeVisible();
  const doc = (await latest(request, "routing"))!.document;
  expect(doc).toMatchObject({ overlap_credit: 2.5, temperature: 0.5 });
});

test("rollback publishes an earlier version's content as a new version, and the audit log lists the changes", async ({
  page,
  baseURL,
}) => {
  const request = page.request;
  const before = await latest(request, "autoscaling");
  const base = before?.version ?? 0;
  const note = uniq("grace");
  const api = await adminApi(baseURL!);
  await adminMutation(api, "policies.publish", {
    kind: "autoscaling",
    document: { grace_period_seconds: 61 },
    baseVersion: before?.version ?? null,
    comment: `${note} 61`,
  });
  await adminMutation(api, "policies.publish", {
    kind: "autoscaling",
    document: { grace_period_seconds: 62 },
    baseVersion: base + 1,
    comment: `${note} 62`,
  });
  await api.dispose();

  await page.goto("/policies?kind=autoscaling");
  const form = panel(page, "Autoscaling");
  await expect(form.getByLabel("Grace period (s)")).toHaveValue("62");
  await expect(form.getByTestId(`autoscaling-version-${base + 2}`)).toContainText("latest");

  await form.getByRole("combobox", { name: "From", exact: true }).selectOption(`${base + 1}`);
  await form.getByRole("combobox", { name: "To", exact: true }).selectOption(`${base + 2}`);
  await expect(form.getByRole("table", { name: `Changes from v${base + 1} to v${base + 2}` })).toContainText(
    "grace_period_seconds",
  );

  await form
    .getByTestId(`autoscaling-version-${base + 1}`)
    .getByRole("button", { name: `Roll back to v${base + 1}` })
    .click();
  const confirm = form.getByRole("region", { name: `Roll back autoscaling to v${base + 1}` });
  await confirm.getByLabel("Comment").fill(`${note} back`);
  await confirm.getByRole("button", { name: `Confirm rollback to v${base + 1}` }).click();
  await expect(form.getByTestId(`autoscaling-version-${base + 3}`)).toContainText(`${note} back`);
  await expect(form.getByTestId(`autoscaling-version-${base + 3}`)).toContainText("latest");
  await expect(form.getByLabel("Grace period (s)")).toHaveValue("61");
  const doc = (await latest(request, "autoscaling"))!;
  expect(doc.version).toBe(base + 3);
  expect(doc.document.grace_period_seconds).toBe(61);

  await page.goto("/policies/audit");
  const log = page.getByRole("table", { name: "Audit log" });
  await expect(log.getByRole("row").nth(1)).toContainText("rollback");
  await expect(log.getByRole("row").nth(1)).toContainText(`v${base + 3}`);
  await expect(log.getByRole("row").nth(1)).toContainText(`content of v${base + 1} on top of v${base + 2}`);
  await expect(log.getByRole("row", { name: new RegExp(`${note} 62`) })).toContainText("publish");
  await expect(log.getByRole("row", { name: /reorder rules/ }).first()).toContainText("retention");
  await expect(log.getByRole("row", { name: /sample a little/ }).first()).toContainText("routing");
});
