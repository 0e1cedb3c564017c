import ipaddr from "ipaddr.js";

// Which hosts the dashboard may send requests to (scrapes, policy pushes, alert deliveries): pure parsing and checks.

export const DENY_SETTING = "SWITCHYARD_OUTBOUND_DENY";
export const ALLOW_SETTING = "SWITCHYARD_OUTBOUND_ALLOW";
export type OutboundSetting = typeof DENY_SETTING | typeof ALLOW_SETTING;

/**
 * Refused when SWITCHYARD_OUTBOUND_DENY is unset: link-local ranges (where every cloud's instance metadata service
 * lives), the metadata services' other well-known addresses, and their host names. Loopback and private ranges stay
 * allowed (the embedded simulated cluster and in-cluster targets live there).
 */
export const DEFAULT_DENY = [
  "169.254.0.0/16", // IPv4 link-local: AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean metadata; ECS task metadata
  "fe80::/10", // IPv6 link-local
  "fd00:ec2::254", // AWS instance metadata over IPv6
  "fd20:ce::254", // Google Compute Engine metadata over IPv6
  "100.100.100.200", // Alibaba Cloud metadata
  "168.63.129.16", // Azure host (WireServer)
  "192.0.0.192", // Oracle Cloud Classic metadata
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.com",
  "metadata.tencentyun.com",
] as const;

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
/** Parsed entries of one setting: address ranges, and host names (each also matching every name under it). */
export type HostList = { cidrs: Cidr[]; names: string[] };
/** deny always applies; allow, when set, is the only set of hosts allowed. */
export type OutboundPolicy = { deny: HostList; allow: HostList | null };
/** Why a host or address is refused: the setting that refused it. */
export type Refusal = { setting: OutboundSetting; host: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The entries of a comma-separated setting; throws an Error naming the first bad entry. "none" alone: no entries. */
export function parseHostList(raw: string): HostList {
  const entries = raw
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  const list: HostList = { cidrs: [], names: [] };
  if (entries.length === 1 && entries[0]!.toLowerCase() === "none") return list;
  for (const entry of entries) {
    const cidr = parseCidr(entry);
    if (cidr) list.cidrs.push(cidr);
    else if (isHostName(entry)) list.names.push(hostName(entry));
    else throw new Error(`entry ${JSON.stringify(entry)} is not a CIDR, IP address or host name`);
  }
  return list;
}

/** The policy from the two settings (unset deny: DEFAULT_DENY); throws an Error naming the setting and entry. */
export function outboundPolicy(deny: string | undefined, allow: string | undefined): OutboundPolicy {
  const parse = (setting: OutboundSetting, raw: string) => {
    try {
      return parseHostList(raw);
    } catch (err) {
      throw new Error(`${setting}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return {
    deny: parse(DENY_SETTING, deny ?? DEFAULT_DENY.join(",")),
    allow: allow === undefined ? null : parse(ALLOW_SETTING, allow),
  };
}

/**
 * Check a URL's host before any lookup: an IP literal is checked as an address, a name against the host names
 * denied. A name outside ALLOW is not refused here (its addresses may be allowed): see checkResolved.
 */
export function checkHost(policy: OutboundPolicy, host: string): Refusal | null {
  const literal = parseAddress(host);
  if (literal) return checkAddress(policy, host, literal, false);
  const name = hostName(host);
  if (matchesName(policy.deny, name)) return { setting: DENY_SETTING, host };
  return null;
}

/** Check a name and every address it resolved to; one refused address refuses the whole answer. */
export function checkResolved(policy: OutboundPolicy, host: string, addresses: readonly string[]): Refusal | null {
  const first = checkHost(policy, host);
  if (first) return first;
  const nameAllowed = !parseAddress(host) && policy.allow !== null && matchesName(policy.allow, hostName(host));
  for (const a of addresses) {
    const address = parseAddress(a);
    if (!address) return { setting: DENY_SETTING, host: a };
    const refusal = checkAddress(policy, a, address, nameAllowed);
    if (refusal) return refusal;
  }
  return null;
}

/** The one-line refusal a request or a save reports, e.g. "169.254.169.254 is refused by SWITCHYARD_OUTBOUND_DENY". */
export function describeRefusal(r: Refusal): string {
  return r.setting === DENY_SETTING
    ? `${r.host} is refused by ${r.setting}`
    : `${r.host} is not allowed by ${r.setting}`;
}

/** An IP address as connected to: IPv4-mapped IPv6 becomes IPv4, brackets and zone ids are dropped. */
export function normalizeAddress(text: string): string | null {
  return parseAddress(text)?.toString() ?? null;
}

function checkAddress(
  policy: OutboundPolicy,
  host: string,
  address: ipaddr.IPv4 | ipaddr.IPv6,
  nameAllowed: boolean,
): Refusal | null {
  if (matchesCidr(policy.deny, address)) return { setting: DENY_SETTING, host };
  if (policy.allow && !nameAllowed && !matchesCidr(policy.allow, address)) return { setting: ALLOW_SETTING, host };
  return null;
}

function matchesCidr(list: HostList, address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return list.cidrs.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

function matchesName(list: HostList, name: string): boolean {
  return list.names.some((n) => name === n || name.endsWith(`.${n}`));
}

/** An IPv4 or IPv6 address (brackets and a zone dropped, IPv4-mapped IPv6 as IPv4), or null when the text is none. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const unzoned = bare.replace(/%.*$/, "");
  if (ipaddr.IPv4.isValidFourPartDecimal(unzoned)) return ipaddr.IPv4.parse(unzoned);
  if (unzoned.includes(":") && ipaddr.IPv6.isValid(unzoned)) return ipaddr.process(unzoned);
  return null;
}

function parseCidr(entry: string): Cidr | null {
  if (!entry.includes("/")) {
    const address = parseAddress(entry);
    return address ? [address, address.kind() === "ipv4" ? 32 : 128] : null;
  }
  const [addr, bits] = [entry.slice(0, entry.lastIndexOf("/")), entry.slice(entry.lastIndexOf("/") + 1)];
  const bare = addr.startsWith("[") && addr.endsWith("]") ? addr.slice(1, -1) : addr;
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(`${bare}/${bits}`)) return ipaddr.IPv4.parseCIDR(`${bare}/${bits}`);
  if (bare.includes(":") && ipaddr.IPv6.isValidCIDR(`${bare}/${bits}`)) {
    const [range, prefix] = ipaddr.IPv6.parseCIDR(`${bare}/${bits}`);
    // ::ffff:a.b.c.d/104+ is an IPv4 range as addresses are compared after normalizing.
    return range.isIPv4MappedAddress() && prefix >= 96 ? [range.toIPv4Address(), prefix - 96] : [range, prefix];
  }
  return null;
}

function hostName(text: string): string {
  return text.toLowerCase().replace(/\.$/, "");
}

// A DNS name (not all-numeric in its last label, which URLs read as an IPv4 address).
function isHostName(entry: string): boolean {
  const name = hostName(entry);
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split(".");
  return labels.every((l) => LABEL.test(l)) && !/^([0-9]+|0x[0-9a-f]*)$/.test(labels.at(-1)!);
}
