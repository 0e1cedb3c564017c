import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";

export type Labels = Record<string, string>;
export type Sample = { labels: Labels; value: number };
export type Histogram = { labels: Labels; buckets: { le: number; count: number }[]; sum: number; count: number };
export type Family = {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  samples: Sample[];
  histograms: Histogram[];
};
export type Exposition = { families: Map<string, Family>; series: number; errors: string[] };

const MAX_ERRORS = 20;
const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*=\\s*"(?:[^"\\\\\\n]|\\\\.)*"\\s*`;
const VALUE = "(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]?Inf|NaN)";
const SAMPLE_LINE = new RegExp(
  `^${NAME}(?:\\{(?:${LABEL}(?:,${LABEL})*,?\\s*)?\\})?[ \\t]+${VALUE}(?:[ \\t]+-?\\d+)?[ \\t]*$`,
);
const TYPE_LINE = new RegExp(`^#\\s+TYPE\\s+${NAME}\\s+(counter|gauge|histogram|summary|untyped)\\s*$`);

/** Parse a value as the text format spells it ("NaN", "+Inf", "1e300"); undefined for anything else. */
export function parseValue(text: string | undefined): number | undefined {
  if (text === undefined || !new RegExp(`^${VALUE}$`).test(text.trim())) return undefined;
  const t = text.trim();
  if (t === "NaN") return NaN;
  if (t.endsWith("Inf")) return t.startsWith("-") ? -Infinity : Infinity;
  return Number(t);
}

/**
 * Parse Prometheus text exposition (0.0.4). Malformed lines are dropped with a line-numbered error and every other
 * series is kept. parse-prometheus-text-format tokenizes samples (names, escaped labels, values); histograms and
 * summaries reach it untyped and are grouped here, because its own grouping merges every labelled series of a
 * histogram into one and drops their labels.
 */
export function parseExposition(text: string): Exposition {
  const errors: string[] = [];
  const kept: string[] = [];
  const types = new Map<string, Family["type"]>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trimEnd();
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const type = TYPE_LINE.exec(line);
      if (/^#\s+TYPE\s/.test(line) && !type) errors.push(`line ${i + 1}: malformed: ${line.slice(0, 120)}`);
      else if (type) types.set(line.split(/\s+/)[2]!, type[1] as Family["type"]);
      return;
    }
    if (SAMPLE_LINE.test(line)) kept.push(line);
    else errors.push(`line ${i + 1}: malformed: ${line.slice(0, 120)}`);
  });
  let parsed: ParsedFamily[];
  try {
    parsed = parsePrometheusTextFormat(kept.join("\n") + "\n");
  } catch (err) {
    return {
      families: new Map(),
      series: 0,
      errors: [...errors, `unparseable exposition: ${err instanceof Error ? err.message : String(err)}`].slice(
        0,
        MAX_ERRORS,
      ),
    };
  }
  const families = new Map<string, Family>();
  const histograms = new Map<string, Histogram>();
  let series = 0;
  const familyOf = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: types.get(name) ?? "untyped", samples: [], histograms: [] }));
    return f;
  };
  for (const f of parsed) {
    const parent = /^(.*)_(bucket|sum|count)$/.exec(f.name);
    const grouped =
      parent && (types.get(parent[1]!) === "histogram" || types.get(parent[1]!) === "summary") ? parent : null;
    for (const m of f.metrics) {
      const value = parseValue(m.value);
      if (value === undefined) {
        errors.push(`${f.name}: value ${JSON.stringify(m.value ?? "")} is not a number`);
        continue;
      }
      const labels = { ...(m.labels ?? {}) };
      if (!grouped) {
        familyOf(f.name).samples.push({ labels, value });
        series++;
        continue;
      }
      const [, base, part] = grouped as unknown as [string, string, string];
      const le = labels.le;
      delete labels.le;
      delete labels.quantile;
      const key = `${base}\u0000${JSON.stringify(Object.entries(labels).sort())}`;
      let h = histograms.get(key);
      if (!h) {
        histograms.set(key, (h = { labels, buckets: [], sum: NaN, count: NaN }));
        familyOf(base).histograms.push(h);
        series++;
      }
      if (part === "sum") h.sum = value;
      else if (part === "count") h.count = value;
      else if (le !== undefined) {
        const bound = parseValue(le);
        if (bound === undefined || Number.isNaN(bound))
          errors.push(`${f.name}: le ${JSON.stringify(le)} is not a number`);
        else h.buckets.push({ le: bound, count: value });
      }
    }
  }
  for (const h of histograms.values()) {
    h.buckets.sort((a, b) => a.le - b.le);
    if (Number.isNaN(h.count)) h.count = h.buckets.at(-1)?.count ?? NaN;
  }
  return { families, series, errors: errors.slice(0, MAX_ERRORS) };
}
