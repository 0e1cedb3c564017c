import { resolveChecked, type Resolve } from "../../outbound/fetch";
import type { OutboundPolicy } from "../../outbound/policy";
import { currentPolicy } from "../../outbound/settings";

const TCP = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):([0-9]{1,5})$/;

/**
 * The endpoint to connect a ZMQ socket to: a tcp:// host resolved once and checked against the outbound policy, as
 * tcp://<checked address>:<port> (ZMQ then reconnects to that address, never resolving the name again); ipc://
 * endpoints are local and returned unchanged. Throws OutboundError when the host is refused.
 */
export async function checkedEndpoint(
  endpoint: string,
  policy: OutboundPolicy = currentPolicy(),
  resolve?: Resolve,
): Promise<string> {
  const tcp = TCP.exec(endpoint);
  if (!tcp) return endpoint;
  const [first] = await resolveChecked(policy, tcp[1]!, resolve);
  return `tcp://${first!.family === 6 ? `[${first!.address}]` : first!.address}:${tcp[2]}`;
}
