// The pure half of `npm run bench:compare` (bench-compare.ts runs the benchmarks): its arguments, the figures read
// from a benchmark's output, the order of the runs and the table that sets the two revisions side by side.
import { median } from "../lib/quantile";

export type CompareOptions = {
  /** The revision to measure against (a commit, a branch, `HEAD`…), as given. */
  base: string;
  /** Rounds: each runs the benchmark once on each side. */
  runs: number;
  /** The package.json script, e.g. `bench:storage`. */
  bench: string;
  /** Arguments passed on to the benchmark. */
  args: string[];
};

export type CompareArgs = { ok: true; options: CompareOptions } | { ok: false; error: string };

export const MAX_RUNS = 20;
/** Benchmarks this one cannot run: itself. */
const NOT_COMPARED = new Set(["bench:compare"]);
export const USAGE =
  "usage: npm run bench:compare -- [--base REV] [--runs N] BENCH [ARG...]  (BENCH: a bench:* script, e.g. bench:sim)";

/**
 * `[--base REV] [--runs N] BENCH [ARG...]` against the package's script names: BENCH may be given with or without its
 * `bench:` prefix; everything after it goes to the benchmark.
 */
export function parseCompareArgs(argv: readonly string[], scripts: readonly string[]): CompareArgs {
  let base = "HEAD";
  let runs = 2;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") continue;
    if (!a.startsWith("--")) break;
    const eq = a.indexOf("=");
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "") return { ok: false, error: `${flag} needs a value\n${USAGE}` };
    if (flag === "--base") base = value;
    else if (flag === "--runs") {
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_RUNS)
        return { ok: false, error: `--runs takes a whole number from 1 to ${MAX_RUNS}, not "${value}"` };
      runs = Number(value);
    } else return { ok: false, error: `unknown option ${flag}\n${USAGE}` };
  }
  const named = argv[i];
  if (named === undefined) return { ok: false, error: `name the benchmark to compare\n${USAGE}` };
  const bench = named.startsWith("bench:") ? named : `bench:${named}`;
  const benches = scripts.filter((s) => s.startsWith("bench:") && !NOT_COMPARED.has(s));
  if (!benches.includes(bench)) return { ok: false, error: `no benchmark "${named}": one of ${benches.join(", ")}` };
  if (base.startsWith("-")) return { ok: false, error: `--base takes a revision, not "${base}"` };
  return { ok: true, options: { base, runs, bench, args: argv.slice(i + 1) } };
}

/** Which side runs first in each round: base first, then the two swap every round (A B, B A, A B…). */
export function runOrder(rounds: number): ("base" | "current")[][] {
  return Array.from({ length: rounds }, (_, r) => (r % 2 === 0 ? ["base", "current"] : ["current", "base"]));
}

export type Figure = { key: string; value: number; unit: string };

/** `text` split at `sep` where it is outside parentheses. */
function splitOutside(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === sep && depth === 0) {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts;
}

/** The words after a number up to a parenthesis or a word holding a digit. */
function unitOf(rest: string): string {
  const unit: string[] = [];
  for (const w of rest.trim().split(/\s+/)) {
    if (w === "" || w.startsWith("(") || /\d/.test(w)) break;
    unit.push(w);
  }
  return unit.join(" ");
}

const LINE = /^\s*([^:\s][^:]{0,119}?):\s+(.*)$/;
/** The first figure after the colon: up to three words, the number, the rest. */
const FIRST = /^((?:[A-Za-z][A-Za-z0-9-]*\s+){0,3}?)(-?\d+(?:\.\d+)?)(?![\d.,:\w])(.*)$/;
/** A later one (`sender 1.5 s`, `other (node) 3.2 s`): words first, which may hold parentheses, then the number. */
const MORE = /^\s*([A-Za-z](?:[^\d(]|\([^)]*\))*?)\s+(-?\d+(?:\.\d+)?)(?![\d.,:\w])(.*)$/;

/**
 * The figures of a benchmark's output: each line `LABEL: NUMBER UNIT…` (`speed: 1441.7 x real time (…)`, `db: 87.2 MB
 * per simulated hour (…)`, `ratio: 0.177`), or with up to three words before the number, which join the label
 * (`attribution on postgres: caught up 212.6 s after ingest ended` is `attribution on postgres: caught up`). The unit is
 * the words after the number up to a parenthesis or a word holding a digit. Once a line holds a figure, the items after
 * it separated by commas or semicolons (outside parentheses) that are words and a number are figures too:
 * `ingest CPU by dashboard thread: ingest workers 6.1 s, other (node) 2.1 s` gives `… ingest workers` and
 * `… other (node)`. A label seen again (one per scenario) is numbered: `label #2`.
 */
export function figuresOf(output: string): Figure[] {
  const out: Figure[] = [];
  const seen = new Map<string, number>();
  const add = (label: string, value: number, unit: string) => {
    const n = (seen.get(label) ?? 0) + 1;
    seen.set(label, n);
    out.push({ key: n === 1 ? label : `${label} #${n}`, value, unit });
  };
  for (const line of output.split("\n")) {
    const m = LINE.exec(line);
    if (!m) continue;
    const label = m[1]!.trim();
    const [first, ...more] = splitOutside(m[2]!, ";").flatMap((segment) => splitOutside(segment, ","));
    const f = FIRST.exec(first!);
    if (!f) continue;
    const words = f[1]!.trim();
    add(words ? `${label}: ${words}` : label, Number(f[2]), unitOf(f[3]!));
    for (const part of more) {
      const g = MORE.exec(part);
      if (g) add(`${label}: ${g[1]!.trim()}`, Number(g[2]), unitOf(g[3]!));
    }
  }
  return out;
}

export type Row = { key: string; unit: string; base: number[]; current: number[]; ratio: number | null };

/** Per figure (in the order the first run printed them), each side's values and current median ÷ base median. */
export function compareRows(base: readonly Figure[][], current: readonly Figure[][]): Row[] {
  const rows = new Map<string, Row>();
  const add = (runs: readonly Figure[][], side: "base" | "current") => {
    for (const figures of runs)
      for (const f of figures) {
        let row = rows.get(f.key);
        if (!row) rows.set(f.key, (row = { key: f.key, unit: f.unit, base: [], current: [], ratio: null }));
        row[side].push(f.value);
      }
  };
  add(current, "current");
  add(base, "base");
  for (const row of rows.values()) {
    const b = median(row.base);
    const c = median(row.current);
    row.ratio = b === null || c === null || b === 0 ? null : c / b;
  }
  return [...rows.values()];
}

/** A value as the benchmarks print theirs: whole numbers as they are, others to four significant digits (one decimal from 100). */
export function fmt(x: number): string {
  if (Number.isInteger(x)) return String(x);
  const s = Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(4);
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** The rows as an aligned text table: figure, unit, each side's runs and median, and the ratio. */
export function formatRows(rows: readonly Row[], baseLabel: string, currentLabel: string): string {
  const head = ["figure", "unit", `${baseLabel} (runs; median)`, `${currentLabel} (runs; median)`, "current ÷ base"];
  const side = (xs: number[]) => (xs.length ? `${xs.map(fmt).join(" · ")}; ${fmt(median(xs)!)}` : "—");
  const body = rows.map((r) => [
    r.key,
    r.unit,
    side(r.base),
    side(r.current),
    r.ratio === null ? "—" : r.ratio.toFixed(3),
  ]);
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((row) => row[k]!.length)));
  return [head, ...body]
    .map((row) =>
      row
        .map((cell, k) => cell.padEnd(widths[k]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
