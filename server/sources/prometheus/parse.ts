import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";

export type Labels = Record<string, string>;
export type Sample = { labels: Labels; value: number };
export type Histogram = { labels: Labels; buckets: { le: number; count: number }[]; sum: number; count: number };
export type Family = { name: string; type: "counter" | "gauge" | "histogram" | "summary" | "untyped"; samples: Sample[]; histograms: Histogram[] };
export type Exposition = { families: Map<string, Family>; series: number; errors: string[] };

const MAX_ERRORS = 20;
const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*=\\s*"(?:[^"\\\\\\n]|\\\\.)*"\\s*`;
const VALUE = "(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]?Inf|NaN)";
const SAMPLE_LINE = new RegExp(`^${NAME}(?:\\{(?:${LABEL}(?:,${LABEL})*,?\\s*)?\\})?[ \\t]+${VALUE}(?:[ \\t]+-?\\d+)?[ \\t]*$`);
const COMMENT_LINE = new RegExp(`^#(?:\\s+(?:HELP|TYPE)\\s+${NAME}(?:\\s.*)?|(?!\\s*(?:HELP|TYPE)\\s).*)$`);
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
 * series is kept; parse-prometheus-text-format does the grouping into families, histograms and summaries.
 */
export function parseExposition(text: string): Exposition {
  const errors: string[] = [];
  const kept: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trimEnd();
    if (line.trim() === "") return;
    const ok = line.startsWith("#") ? COMMENT_LINE.test(line) && (!/^#\s+TYPE\s/.test(line) || TYPE_LINE.test(line)) : SAMPLE_LINE.test(line);
    if (ok) kept.push(line);
    else if (errors.length < MAX_ERRORS) errors.push(`line ${i + 1}: malformed: ${line.slice(0, 120)}`);
  });
  let parsed: ParsedFamily[];
  try {
    parsed = parsePrometheusTextFormat(kept.join("\n") + "\n");
  } catch (err) {
    return { families: new Map(), series: 0, errors: [...errors, `unparseable exposition: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const families = new Map<string, Family>();
  let series = 0;
  for (const f of parsed) {
    const family = toFamily(f, errors);
    series += family.samples.length + family.histograms.length;
    const existing = families.get(family.name);
    if (existing) {
      existing.samples.push(...family.samples);
      existing.histograms.push(...family.histograms);
    } else families.set(family.name, family);
  }
  return { families, series, errors: errors.slice(0, MAX_ERRORS) };
}

function toFamily(f: ParsedFamily, errors: string[]): Family {
  const type = f.type.toLowerCase() as Family["type"];
  const family: Family = { name: f.name, type, samples: [], histograms: [] };
  for (const m of f.metrics) {
    const labels = m.labels ?? {};
    if (type === "histogram") {
      const buckets = Object.entries(m.buckets ?? {})
        .map(([le, count]) => ({ le: parseValue(le), count: parseValue(count) }))
        .filter((b): b is { le: number; count: number } => b.le !== undefined && b.count !== undefined && !Number.isNaN(b.le))
        .sort((a, b) => a.le - b.le);
      const sum = parseValue(m.sum) ?? NaN;
      const count = parseValue(m.count) ?? buckets.at(-1)?.count ?? NaN;
      family.histograms.push({ labels, buckets, sum, count });
    } else if (type === "summary") {
      const value = parseValue(m.sum);
      if (value !== undefined) family.samples.push({ labels, value });
    } else {
      const value = parseValue(m.value);
      if (value === undefined) {
        if (errors.length < MAX_ERRORS) errors.push(`${f.name}: value ${JSON.stringify(m.value ?? "")} is not a number`);
      } else family.samples.push({ labels, value });
    }
  }
  return family;
}
