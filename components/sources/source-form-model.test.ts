import { describe, expect, it } from "vitest";
import { issuesToErrors, KIND_FIELDS, newSourceValues, sourceToValues, validateSource } from "./source-form-model";

describe("source form model", () => {
  it("a filled Prometheus form becomes the procedure input, blank optionals left out, labels parsed", () => {
    const v = newSourceValues("prometheus");
    Object.assign(v, { id: "vllm-a", name: "vLLM A" });
    v.fields = { ...v.fields, url: " http://a:8000/metrics ", timeout_seconds: "", labels: "pool=a\n\nzone = eu" };
    expect(validateSource(v)).toEqual({
      ok: true,
      input: {
        id: "vllm-a",
        name: "vLLM A",
        kind: "prometheus",
        enabled: true,
        config: { url: "http://a:8000/metrics", kind: "auto", interval_seconds: 15, labels: { pool: "a", zone: "eu" } },
      },
    });
  });

  it.each([
    [{ url: "nope" }, "config.url", "must be an http(s) URL"],
    [{ url: "http://a/metrics", interval_seconds: "0" }, "config.interval_seconds", "must be at least 1"],
    [{ url: "http://a/metrics", interval_seconds: "abc" }, "config.interval_seconds", "must be a number of seconds"],
    [{ url: "http://a/metrics", labels: "bad-name=x" }, "config.labels", "must be a Prometheus label name"],
  ])("%j → %s: %s", (fields, path, message) => {
    const v = { ...newSourceValues("prometheus"), id: "a", name: "A" };
    v.fields = { ...v.fields, ...fields };
    const r = validateSource(v);
    expect(r.ok).toBe(false);
    expect(r.ok ? null : r.errors[path]).toContain(message);
  });

  it("takes an optional cluster for every kind, and names a malformed one", () => {
    for (const kind of ["prometheus", "zmq-kv", "trace-dir"] as const)
      expect(KIND_FIELDS[kind].some((f) => f.name === "cluster" && f.optional)).toBe(true);
    const v = newSourceValues("prometheus");
    v.id = "eu";
    v.name = "EU";
    v.fields.url = "http://vllm-eu:8000/metrics";
    v.fields.cluster = "prod-eu";
    const ok = validateSource(v);
    expect(ok.ok && (ok.input.config as { cluster?: string }).cluster).toBe("prod-eu");
    v.fields.cluster = "prod eu";
    const bad = validateSource(v);
    expect(bad.ok ? {} : bad.errors).toEqual({ "config.cluster": expect.stringMatching(/^must be 1 to 64 letters/) });
    v.fields.cluster = "";
    const none = validateSource(v);
    expect(none.ok && "cluster" in (none.input.config as object)).toBe(false);
  });

  it("names the id and name fields", () => {
    const r = validateSource({
      ...newSourceValues("trace-dir"),
      id: "Bad Id",
      fields: { path: "/t", poll_seconds: "5" },
    });
    expect(r.ok ? null : Object.keys(r.errors).sort()).toEqual(["id", "name"]);
  });

  it("round-trips a stored source into form values", () => {
    const v = sourceToValues({
      id: "a",
      name: "A",
      kind: "prometheus",
      enabled: false,
      config: { url: "http://a/metrics", kind: "vllm", interval_seconds: 5, labels: { pool: "a" } },
    });
    expect(v.fields).toEqual({ url: "http://a/metrics", kind: "vllm", interval_seconds: "5", labels: "pool=a" });
    expect(validateSource(v).ok).toBe(true);
  });

  it("server issues map to the same field keys", () => {
    expect(
      issuesToErrors([
        { path: "source.config.url", message: "bad" },
        { path: "source.config.url", message: "second" },
        { path: "", message: "whole" },
      ]),
    ).toEqual({ "config.url": "bad", form: "whole" });
  });
});
