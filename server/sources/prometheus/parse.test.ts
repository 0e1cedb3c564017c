import { describe, expect, it } from "vitest";
import { VLLM_NEW } from "./fixtures";
import { parseExposition, parseValue } from "./parse";

describe("parseValue", () => {
  it.each([
    ["1", 1],
    ["-2.5e3", -2500],
    ["1e300", 1e300],
    ["+Inf", Infinity],
    ["-Inf", -Infinity],
    [".5", 0.5],
  ])("%s → %s", (text, value) => expect(parseValue(text)).toBe(value));
  it("NaN stays NaN", () => expect(parseValue("NaN")).toBeNaN());
  it.each(["", "abc", "1,5", "0x10", undefined])("rejects %s", (text) => expect(parseValue(text)).toBeUndefined());
});

describe("parseExposition", () => {
  it("groups families, histograms and labels from a documented vLLM exposition", () => {
    const ex = parseExposition(VLLM_NEW({ ttft: [1, 3, 4, 4] }));
    expect(ex.errors).toEqual([]);
    expect(ex.families.get("vllm:kv_cache_usage_perc")).toMatchObject({
      type: "gauge",
      samples: [{ labels: { engine: "0", model_name: "qwen3" }, value: 0.25 }],
    });
    const ttft = ex.families.get("vllm:time_to_first_token_seconds")!;
    expect(ttft.type).toBe("histogram");
    expect(ttft.histograms[0]!.buckets.map((b) => [b.le, b.count])).toEqual([
      [0.1, 1],
      [0.5, 3],
      [1, 4],
      [Infinity, 4],
    ]);
    expect(ttft.histograms[0]!.labels).toEqual({ engine: "0", model_name: "qwen3" });
    expect(ex.series).toBe(9);
  });

  it("keeps each labelled series of a histogram apart", () => {
    const text = [
      "# TYPE h histogram",
      'h_bucket{m="a",le="1"} 1',
      'h_bucket{m="a",le="+Inf"} 2',
      'h_sum{m="a"} 3',
      'h_count{m="a"} 2',
      'h_bucket{m="b",le="1"} 5',
      'h_bucket{m="b",le="+Inf"} 6',
      'h_sum{m="b"} 7',
      'h_count{m="b"} 6',
    ].join("\n");
    const h = parseExposition(text).families.get("h")!;
    expect(h.histograms.map((x) => [x.labels.m, x.buckets.length, x.sum, x.count])).toEqual([
      ["a", 2, 3, 2],
      ["b", 2, 7, 6],
    ]);
  });

  it("drops malformed lines with a line-numbered error and keeps every good series", () => {
    const ex = parseExposition(
      [
        "# TYPE a gauge",
        'a{x="1"} 3',
        "broken{ 2",
        "b 1 2 3 4",
        'c{x="unterminated} 1',
        "d 7",
        "# TYPE e wrongtype",
        "e 1",
      ].join("\n"),
    );
    expect(ex.errors).toEqual([
      "line 3: malformed: broken{ 2",
      "line 4: malformed: b 1 2 3 4",
      'line 5: malformed: c{x="unterminated} 1',
      "line 7: malformed: # TYPE e wrongtype",
    ]);
    expect([...ex.families.keys()]).toEqual(["a", "d", "e"]);
    expect(ex.families.get("d")!.samples[0]!.value).toBe(7);
  });

  it("keeps NaN, +Inf and huge values as numbers, escaped label values intact, timestamps ignored", () => {
    const ex = parseExposition('x{v="a\\"b"} NaN\ny +Inf\nz 1.7976931348623157e308 1700000000000\n');
    expect(ex.families.get("x")!.samples[0]!.value).toBeNaN();
    expect(ex.families.get("x")!.samples[0]!.labels.v).toBe('a"b');
    expect(ex.families.get("y")!.samples[0]!.value).toBe(Infinity);
    expect(ex.families.get("z")!.samples[0]!.value).toBe(Number.MAX_VALUE);
  });

  it("an empty or comment-only body has no series and no errors", () => {
    expect(parseExposition("")).toMatchObject({ series: 0, errors: [] });
    expect(parseExposition("# just a comment\n\n")).toMatchObject({ series: 0, errors: [] });
  });

  it("an HTML error page is all errors, no series", () => {
    const ex = parseExposition("<html>\n<body>502 Bad Gateway</body>\n</html>");
    expect(ex.series).toBe(0);
    expect(ex.errors[0]).toBe("line 1: malformed: <html>");
  });
});
