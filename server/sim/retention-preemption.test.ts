import { describe, expect, it } from "vitest";
import { ofKind, runScenario } from "./test-support";

// Issue 14's check "a retention policy that frees KV earlier reduces preemptions", over the real pressure scenario.
// The engine works as vLLM's does: a cached block no running request references is free capacity (evicted the moment
// an allocation needs it), so freeing it earlier (a TTL, evict_on agent_end) gives running requests nothing they
// lacked. Preemptions there come from admitted prompts outgrowing KV chunk by chunk. The only retention lever on KV
// that requests can use is the pin, and holding KV that way cuts preemptions by admitting less work, not by freeing.

const SEEDS = [1, 2, 3];
const SECONDS = 600;

const FREES_EARLIER = { default: { ttl_seconds: 30, evict_on: "agent_end" } };
const HOLDS_WAITING_AGENTS = {
  rules: [
    { name: "keep-system-prompt", match: { segment: "system_prompt" }, priority: 90, ttl_seconds: 3600 },
    { name: "hold-conversation", match: { segment: "conversation" }, pin: true },
  ],
};

/** Preemptions, requests and prompt tokens served over seeds 1–3 of the pressure scenario under a retention policy. */
function pressure(retention?: unknown): { preemptions: number; requests: number; promptTokens: number } {
  let preemptions = 0;
  let requests = 0;
  let promptTokens = 0;
  for (const seed of SEEDS) {
    const events = runScenario({
      scenario: "pressure",
      seconds: SECONDS,
      seed,
      ...(retention ? { policies: { retention } } : {}),
    });
    for (const r of ofKind(events, "request")) {
      preemptions += r.preemptions ?? 0;
      requests++;
      promptTokens += r.input_tokens;
    }
  }
  return { preemptions, requests, promptTokens };
}

describe("pressure: preemptions against retention (seeds 1–3, 10 simulated minutes each)", () => {
  const base = pressure();
  const freed = pressure(FREES_EARLIER);
  const held = pressure(HOLDS_WAITING_AGENTS);

  it("shows preemptions with the scenario's own retention", () => {
    expect(base.preemptions / base.requests).toBeGreaterThan(0.5);
  });

  it("does not change them when cached KV is freed earlier (TTL 30 s, evict_on agent_end): it was free capacity already", () => {
    expect(freed.preemptions).toBeGreaterThan(0.9 * base.preemptions);
    expect(freed.preemptions).toBeLessThan(1.1 * base.preemptions);
    expect(freed.promptTokens).toBeGreaterThan(0.9 * base.promptTokens);
  });

  it("lowers them when waiting agents' KV is held (pinned), by serving less: held KV is KV no one else is admitted into", () => {
    expect(held.preemptions / held.requests).toBeLessThan(0.7 * (base.preemptions / base.requests));
    expect(held.promptTokens).toBeLessThan(0.8 * base.promptTokens);
  });
});
