import { describe, expect, it } from "vitest";
import { factsOf, kvBytesPerToken, MAX_BYTES_PER_TOKEN } from "./model-facts";

describe("factsOf", () => {
  it.each([
    ["qwen3-coder-480b-a35b", 253_952],
    ["Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", 253_952],
    ["Qwen/Qwen3-Coder-30B-A3B-Instruct", 98_304],
    ["openai/gpt-oss-120b", 73_728],
    ["gpt-oss-20b", 49_152],
    ["meta-llama/Llama-3.1-70B-Instruct", 327_680],
    ["deepseek-ai/DeepSeek-V3", 70_272],
  ])("%s: %d bytes per token", (model, bytes) => {
    const f = factsOf(model)!;
    expect(f.tensors * f.layers * f.kvHeads * f.headDim * f.dtypeBytes).toBe(bytes);
  });

  it.each(["mistral-large", "", "my-org/"])("does not know %j", (model) => expect(factsOf(model)).toBeNull());
});

describe("kvBytesPerToken", () => {
  it("takes the model most workers serve and says where the figure comes from", () => {
    const k = kvBytesPerToken(["gpt-oss-120b", "gpt-oss-120b", "qwen3-coder-480b-a35b", null], null);
    expect(k.bytesPerToken).toBe(73_728);
    expect(k.model).toBe("gpt-oss-120b");
    expect(k.source).toContain("36 layers × 8 KV heads × 64 × 2 (K and V) × 2 bytes = 73,728");
    expect(k.source).toContain("the workers serve 2 models");
  });

  it("falls back to the simulated model's figure and says so", () => {
    expect(kvBytesPerToken(["mistral-large"], null)).toMatchObject({
      bytesPerToken: 253_952,
      source: expect.stringContaining("model mistral-large is not in Switchyard's model table"),
    });
    expect(kvBytesPerToken([null], null).source).toContain("the workers reported no model");
  });

  it("takes a given figure over any model's", () => {
    expect(kvBytesPerToken(["gpt-oss-120b"], 1000)).toMatchObject({
      bytesPerToken: 1000,
      source: expect.stringContaining("as given"),
    });
  });

  it.each([0, -1, 1.5, MAX_BYTES_PER_TOKEN + 1, Number.NaN])("refuses bytes_per_token %d (400)", (v) =>
    expect(() => kvBytesPerToken([], v)).toThrow("bytes_per_token must be a whole number"),
  );
});
