import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../env";
import { parseScrapeTargets } from "./env-targets";

describe("parseScrapeTargets", () => {
  it("reads every field, defaults the interval and gives stable ids per URL", () => {
    const raw = JSON.stringify([
      { url: "http://vllm-0:8000/metrics", kind: "vllm", worker_id: "w0", labels: { pool: "a" } },
      { url: "http://frontend:8080/metrics", kind: "dynamo-frontend", interval_seconds: 5 },
    ]);
    const targets = parseScrapeTargets(raw);
    expect(
      targets.map((t) => [t.name, t.config.kind, t.config.interval_seconds, t.config.worker_id, t.config.labels]),
    ).toEqual([
      ["w0 (vllm-0:8000)", "vllm", 15, "w0", { pool: "a" }],
      ["frontend:8080", "dynamo-frontend", 5, undefined, undefined],
    ]);
    expect(targets[0]!.id).toMatch(/^env-vllm-0-8000-[0-9a-f]{10}$/);
    expect(parseScrapeTargets(raw).map((t) => t.id)).toEqual(targets.map((t) => t.id));
  });

  it.each([
    [undefined, 0],
    ["", 0],
    ["[]", 0],
  ])("%j is no targets", (raw, n) => expect(parseScrapeTargets(raw)).toHaveLength(n));

  it.each([
    ["not json", "must be a JSON array of {url, kind, interval_seconds?, worker_id?, labels?}"],
    ['{"url":"http://a/metrics"}', "must be a JSON array"],
    ['[{"url":"ftp://a/metrics","kind":"vllm"}]', 'entry 0 ("ftp://a/metrics"): url: must be an http(s) URL'],
    [
      '[{"url":"http://a/metrics","kind":"vllm"},{"url":"http://b/metrics","kind":"tgi"}]',
      'entry 1 ("http://b/metrics"): kind: must be one of dynamo-frontend, dynamo-worker, vllm, sglang, kvbm, auto',
    ],
    ['[{"url":"http://a/metrics"}]', 'entry 0 ("http://a/metrics"): kind: is required'],
    [
      '[{"url":"http://a/metrics","kind":"auto","interval_seconds":0}]',
      'entry 0 ("http://a/metrics"): interval_seconds: must be at least 1',
    ],
    [
      '[{"url":"http://a/metrics","kind":"auto","labels":{"bad-name":"x"}}]',
      'entry 0 ("http://a/metrics"): labels: "bad-name" must be a Prometheus label name',
    ],
    ['[{"url":"http://a/metrics","kind":"auto","extra":1}]', 'entry 0 ("http://a/metrics"): entry: Unrecognized key'],
    [
      '[{"url":"http://a/metrics","kind":"auto"},{"url":"http://a/metrics","kind":"vllm"}]',
      'entry 1 ("http://a/metrics"): duplicate of an earlier entry',
    ],
    ["[3]", "entry 0: entry:"],
    [
      '[{"url":"http://x/metrics?y#z","kind":"auto"}]',
      'entry 0 ("http://x/metrics?y#z"): url: must not have a query or fragment (? or #)',
    ],
    ['[{"url":"http://x/m#frag","kind":"auto"}]', "url: must not have a query or fragment"],
  ])("%s → %s", (raw, message) => expect(() => parseScrapeTargets(raw)).toThrow(message));
});

describe("SWITCHYARD_SCRAPE_TARGETS in the environment", () => {
  it("a bad entry stops startup with one line naming the setting and the entry", () => {
    const raw = '[{"url":"http://a/metrics","kind":"nope"}]';
    let error: unknown;
    try {
      parseEnv({ SWITCHYARD_SCRAPE_TARGETS: raw });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as Error).message).toMatch(
      /^invalid setting SWITCHYARD_SCRAPE_TARGETS=.*: entry 0 \("http:\/\/a\/metrics"\): kind: must be one of/,
    );
    expect((error as Error).message).not.toContain("\n");
  });

  it("valid targets pass through as the raw string", () => {
    expect(
      parseEnv({ SWITCHYARD_SCRAPE_TARGETS: '[{"url":"http://a/metrics","kind":"auto"}]' }).SWITCHYARD_SCRAPE_TARGETS,
    ).toContain("http://a/metrics");
  });
});
