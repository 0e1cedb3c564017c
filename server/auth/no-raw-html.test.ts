import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Telemetry text (session ids, tool, model and worker names, label values) reaches the UI only through React's
// escaping: no component may inject HTML or evaluate strings.
const ROOTS = ["app", "components"];
const FORBIDDEN = [
  /dangerouslySetInnerHTML/,
  /\.innerHTML\s*=/,
  /\.outerHTML\s*=/,
  /insertAdjacentHTML/,
  /document\.write/,
  /\beval\(/,
  /new Function\(/,
];

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.(tsx?|jsx?)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("no raw HTML in the UI", () => {
  const all = ROOTS.flatMap((r) => files(path.join(process.cwd(), r)));

  it("finds the UI sources", () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it("no component injects HTML or evaluates strings", () => {
    const hits = all.flatMap((f) => {
      const text = fs.readFileSync(f, "utf8");
      return FORBIDDEN.filter((re) => re.test(text)).map((re) => `${path.relative(process.cwd(), f)}: ${re.source}`);
    });
    expect(hits).toEqual([]);
  });
});
