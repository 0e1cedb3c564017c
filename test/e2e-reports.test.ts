import { describe, expect, it } from "vitest";
import { isErrorLine } from "../e2e/fixtures/log-errors";
import { pageSnapshot } from "../e2e/fixtures/page-on-failure";

const context = (snapshot: string) =>
  [
    "# Instructions",
    "",
    "# Error details",
    "",
    "```",
    "Error: element(s) not found",
    "```",
    "",
    "# Page snapshot",
    "",
    "```yaml",
    snapshot,
    "```",
    "",
    "# Test source",
    "",
    "```ts",
    "await expect(x).toBeVisible();",
    "```",
  ].join("\n");

describe("pageSnapshot", () => {
  it.each([
    ["no snapshot section", "# Error details\n\n```\nboom\n```", 10, []],
    [
      "the snapshot only, not the test's source",
      context('- heading "Workers"\n- table'),
      10,
      ['- heading "Workers"', "- table"],
    ],
    [
      "the snapshot a failed matcher took, under its error",
      "# Error details\n\n```\nError: not found\n```\n\n```yaml\n- main\n```\n\n# Test source\n\n```ts\nx\n```",
      10,
      ["- main"],
    ],
    ["cut to the line limit with a count", context("- a\n- b\n- c"), 2, ["- a", "- b", "… 1 more line(s)"]],
    [
      "the banner and link targets dropped",
      context('- banner:\n  - link "Overview":\n    - /url: /\n- main:\n  - link "w1":\n    - /url: /workers/w1'),
      10,
      ["- main:", '  - link "w1":'],
    ],
    ["blank lines dropped", context("- a\n\n- b"), 10, ["- a", "- b"]],
  ])("%s", (_name, text, max, want) => {
    expect(pageSnapshot(text, max)).toEqual(want);
  });

  it("cuts long lines", () => {
    expect(pageSnapshot(context(`- ${"x".repeat(50)}`), 10, 10)).toEqual(["- xxxxxxxx…"]);
  });
});

describe("isErrorLine", () => {
  it.each([
    ['{"level":"error","msg":"trpc failed"}', true],
    ['{"level":"fatal","msg":"x"}', true],
    ['{"level":50,"msg":"x"}', true],
    ['{"level":"warn","msg":"x"}', false],
    ['{"level":"info","msg":"error in the message only"}', false],
    ["{not json", false],
    [" ⨯ Error: boom", true],
    ["TypeError: x is undefined", true],
    ["Error: listen EADDRINUSE", true],
    ["   ▲ Next.js 16", false],
    ["an error somewhere in the middle", false],
    ["", false],
  ])("%j → %s", (line, want) => {
    expect(isErrorLine(line)).toBe(want);
  });
});
