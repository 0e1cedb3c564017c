// A request's agent_hints and policy_versions as stored: a JSON array of the values in the keys' fixed order (null
// where absent, trailing absent ones left out), e.g. [12,1,2,3] for {"retention":12,"autoscaling":1,"routing":2,
// "frontend":3}: the key names were about two thirds of the text. Readers get the object's JSON back (keys in that
// order); rows stored before hold the object's JSON and read as stored. Pure; no I/O.

const HINT_KEYS = ["priority", "osl", "speculative_prefill"] as const;
const POLICY_KEYS = ["retention", "autoscaling", "routing", "frontend"] as const;

function encode(keys: readonly string[], v: Record<string, unknown> | undefined): string | null {
  if (v === undefined) return null;
  const out = keys.map((k) => (v[k] === undefined ? null : v[k]));
  while (out.length > 0 && out[out.length - 1] === null) out.pop();
  return JSON.stringify(out);
}

function decode(keys: readonly string[], stored: string | null, what: string): string | null {
  if (stored === null || stored[0] !== "[") return stored;
  const values = JSON.parse(stored) as unknown;
  if (!Array.isArray(values) || values.length > keys.length) throw new Error(`stored ${what} is not a known array`);
  const out: Record<string, unknown> = {};
  values.forEach((v, i) => {
    if (v !== null) out[keys[i]!] = v;
  });
  return JSON.stringify(out);
}

/** requests.agent_hints of an event's agent_hints (null: none sent). */
export const encodeAgentHints = (v: Record<string, unknown> | undefined) => encode(HINT_KEYS, v);
/** The agent_hints JSON object of a stored requests.agent_hints. */
export const decodeAgentHints = (s: string | null) => decode(HINT_KEYS, s, "agent_hints");
/** requests.policy_versions of an event's policy_versions (null: none sent). */
export const encodePolicyVersions = (v: Record<string, unknown> | undefined) => encode(POLICY_KEYS, v);
/** The policy_versions JSON object of a stored requests.policy_versions. */
export const decodePolicyVersions = (s: string | null) => decode(POLICY_KEYS, s, "policy_versions");
