import ipaddr from "ipaddr.js";
import { parseAddress } from "../outbound/policy";

// Which X-Forwarded-* headers to believe: only those a proxy listed in SWITCHYARD_TRUST_PROXY sent (unset: none).
// Pure: the server entry asks proxyView what to drop and which address to rate-limit, per request.

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The trusted proxies' addresses and ranges; empty trusts nobody. */
export type TrustedProxies = readonly Range[];

/** Headers the dashboard sets for its own handlers: a client's copies are always dropped. */
export const INTERNAL_HEADERS: readonly string[] = ["x-switchyard-client-address", "x-switchyard-path"];

function parseRange(entry: string): Range | null {
  const slash = entry.lastIndexOf("/");
  if (slash < 0) {
    const address = parseAddress(entry);
    return address ? [address, address.kind() === "ipv4" ? 32 : 128] : null;
  }
  const [addr, bits] = [entry.slice(0, slash), entry.slice(slash + 1)];
  if (!/^\d{1,3}$/.test(bits)) return null;
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(`${addr}/${bits}`)) return ipaddr.IPv4.parseCIDR(`${addr}/${bits}`);
  if (addr.includes(":") && ipaddr.IPv6.isValidCIDR(`${addr}/${bits}`)) {
    const [range, prefix] = ipaddr.IPv6.parseCIDR(`${addr}/${bits}`);
    // ::ffff:a.b.c.d/96+ is an IPv4 range: addresses are compared after IPv4-mapped ones become IPv4.
    return range.isIPv4MappedAddress() && prefix >= 96 ? [range.toIPv4Address(), prefix - 96] : [range, prefix];
  }
  return null;
}

/**
 * SWITCHYARD_TRUST_PROXY's comma-separated addresses and CIDR ranges (IPv4 or IPv6); throws naming the first entry
 * that is neither. Unset or blank: no proxy is trusted.
 */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const entries = (raw ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  return entries.map((entry) => {
    const range = parseRange(entry);
    if (!range)
      throw new Error(`${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8)`);
    return range;
  });
}

/** An address as the limiter keys it: IPv4-mapped IPv6 becomes IPv4; null when it is not an IP address. */
function normalize(text: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!text) return null;
  // A proxy may append a port: 1.2.3.4:5678 or [2001:db8::1]:5678.
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text);
  const v6port = /^\[([^\]]+)\]:\d+$/.exec(text);
  return parseAddress(v4port?.[1] ?? v6port?.[1] ?? text);
}

function trusted(list: TrustedProxies, address: ipaddr.IPv4 | ipaddr.IPv6 | null): boolean {
  return (
    address !== null && list.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))
  );
}

export type ProxyView = { drop: string[]; clientAddress: string };

/**
 * For one request from socket peer `peer`: the headers to delete before the app sees it, and the client's address.
 * From a peer that is not a trusted proxy, every X-Forwarded-* (and Forwarded) header is dropped and the client is
 * the peer. From a trusted proxy they stay, and the client is the rightmost X-Forwarded-For entry that is not itself
 * a trusted proxy (the entries to its left were written by whoever it forwarded for, so they prove nothing); the
 * proxy itself when there is none. The dashboard's own headers are dropped either way.
 */
export function proxyView(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  peer: string | undefined,
  proxies: TrustedProxies,
): ProxyView {
  const names = Object.keys(headers).map((n) => n.toLowerCase());
  const internal = names.filter((n) => INTERNAL_HEADERS.includes(n));
  const peerAddress = normalize(peer);
  const peerText = peerAddress?.toString() ?? peer ?? "unknown";
  if (!trusted(proxies, peerAddress))
    return {
      drop: [...names.filter((n) => n.startsWith("x-forwarded-") || n === "forwarded"), ...internal],
      clientAddress: peerText,
    };
  const forwardedFor = headers["x-forwarded-for"];
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  let client = peerText;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalize(hops[i]);
    // Not an address: the nearest hop named so far is as far as the chain can be followed.
    if (hop === null) break;
    client = hop.toString();
    if (!trusted(proxies, hop)) break;
  }
  return { drop: internal, clientAddress: client };
}
