import { describe, expect, it } from "vitest";
import { ofKind, runScenario } from "./test-support";

// Issue 14's check "a retention policy that frees KV earlier reduces preemptions", over the real pressure scenario.
// The engine works as vLLM's does: a cached block no running request references is free capacity (evicted the moment
// an allocation needs it), so freeing it earlier (a TTL, evict_on agent_end) gives running requests nothing they
// lacked. Preemptions there come from admitted prompts outgrowing KV chunk by chunk. The only retention lever on KV
// that requests can use is the pin, and holding KV that way cuts preemptions by admitting less work, not by freeing.
// Ending a hold sooner (a TTL on the pin) lets more work in, and the preemptions come with that work: across all
// four policies below, seeds 1–3, preemptions per million served prompt tokens stay within 11.1–11.8. (An earlier
// version of this test found fewer preemptions with the TTL; that was agents hung after a refused turn, since fixed
// in agent.ts.) So in this model, as in vLLM, retention changes how much is admitted, not how often admitted work is
// preempted: the check "a retention policy that frees KV earlier reduces them" does not hold here.

const SEEDS = [1, 2, 3];
const SECONDS = 600;

const FREES_EARLIER = { default: { ttl_seconds: 30, evict_on: "agent_end" } };
const KEEP_SYSTEM_PROMPT = {
  name: "keep-system-prompt",
  match: { segment: "system_prompt" },
  priority: 90,
  ttl_seconds: 3600,
};
const HOLDS_WAITING_AGENTS = {
  rules: [KEEP_SYSTEM_PROMPT, { name: "hold-conversation", match: { segment: "conversation" }, pin: true }],
};
/** The same hold, ended 30 s after an agent's last request released its conversation. */
const HOLDS_FOR_30S = {
  rules: [
    KEEP_SYSTEM_PROMPT,
    { name: "hold-conversation", match: { segment: "conversation" }, pin: true, ttl_seconds: 30 },
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
  const heldBriefly = pressure(HOLDS_FOR_30S);

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

  it("keeps them in step with the served load when the hold ends sooner (a 30 s TTL on the pin): more served, same rate", () => {
    // Seeds 1–3: pinned until evicted 308 preemptions over 26.9 M prompt tokens; with the TTL 363 over 32.7 M.
    expect(heldBriefly.promptTokens).toBeGreaterThan(1.1 * held.promptTokens);
    const rate = (r: { preemptions: number; promptTokens: number }) => r.preemptions / r.promptTokens;
    for (const r of [freed, held, heldBriefly]) {
      expect(rate(r)).toBeGreaterThan(0.85 * rate(base));
      expect(rate(r)).toBeLessThan(1.15 * rate(base));
    }
  });
});
