import { env } from "../env";
import { outboundPolicy, type OutboundPolicy } from "./policy";

let cached: OutboundPolicy | undefined;

/** This process's outbound policy, from SWITCHYARD_OUTBOUND_DENY and SWITCHYARD_OUTBOUND_ALLOW (read once). */
export function currentPolicy(): OutboundPolicy {
  const e = env();
  cached ??= outboundPolicy(e.SWITCHYARD_OUTBOUND_DENY, e.SWITCHYARD_OUTBOUND_ALLOW);
  return cached;
}
