import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The repository stands alone: nothing in it cites a document or a folder outside it, and every relative link in the
// README and docs/ leads to a file that exists.

const root = process.cwd();
const tracked = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && fs.existsSync(path.join(root, f)));
// Spelled in pieces so that this file does not match itself.
const OUTSIDE = [
  ["..", "shared"].join("/"),
  ["DESIGN", "md"].join("."),
  ["STYLE", "md"].join("."),
  ["DESIGN", "§"].join(" "),
  ["STYLE", "§"].join(" "),
];
const TEXT = /\.(ts|tsx|mts|mjs|js|json|md|css|yml|yaml|sh)$|^\.ci\/|^README/;

describe("the repository stands alone", () => {
  it("cites no document or folder outside it", () => {
    const found: string[] = [];
    for (const file of tracked) {
      if (!TEXT.test(file) || file === "package-lock.json") continue;
      const text = fs.readFileSync(path.join(root, file), "utf8");
      for (const needle of OUTSIDE) if (text.includes(needle)) found.push(`${file}: ${needle}`);
    }
    expect(found).toEqual([]);
  });

  it("has no relative link in the README or docs/ to a file that is missing", () => {
    const pages = tracked.filter((f) => f === "README.md" || (f.startsWith("docs/") && f.endsWith(".md")));
    expect(pages.length).toBeGreaterThan(5);
    const broken: string[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(path.join(root, page), "utf8");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
        const file = target.split("#")[0]!;
        if (!fs.existsSync(path.join(root, path.dirname(page), decodeURI(file)))) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
