import { AppError } from "../errors";
import { checkHost, describeRefusal, type OutboundPolicy } from "./policy";
import { currentPolicy } from "./settings";

const ADDRESS_FIELDS = ["url", "endpoint", "replay_endpoint"] as const;

/**
 * Refuse a source's or target's config (422) whose url/endpoint host is a literal address or a name the outbound
 * policy refuses, naming the field and the setting; names are checked again on every connection.
 */
export function assertOutboundConfig(config: Record<string, unknown>, policy: OutboundPolicy = currentPolicy()): void {
  for (const field of ADDRESS_FIELDS) {
    const value = config[field];
    const host = typeof value === "string" ? hostOf(value) : null;
    const refusal = host === null ? null : checkHost(policy, host);
    if (refusal) throw new AppError("UNPROCESSABLE", `config.${field}: ${describeRefusal(refusal)}`);
  }
}

// The host of an http(s) URL or a tcp:// endpoint; null for ipc:// and anything unparseable.
function hostOf(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === "ipc:" || url.hostname === "" ? null : url.hostname;
}
