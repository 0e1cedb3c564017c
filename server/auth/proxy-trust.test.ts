import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { parseTrustedProxies, proxyView, type ProxyView } from "./proxy-trust";

describe("parseTrustedProxies", () => {
  it.each<[string, string | undefined, number]>([
    ["unset: nobody", undefined, 0],
    ["blank: nobody", " , ", 0],
    ["one address", "10.0.0.5", 1],
    ["addresses and ranges of both families", "10.0.0.5, 192.168.0.0/16,::1, fd00::/8", 4],
    ["an IPv4-mapped range", "::ffff:10.0.0.0/104", 1],
    ["a bracketed IPv6 address", "[2001:db8::1]", 1],
  ])("%s", (_, raw, n) => {
    expect(parseTrustedProxies(raw)).toHaveLength(n);
  });

  it.each([
    ["a host name", "proxy.internal", '"proxy.internal" is not an IP address or CIDR range'],
    ["a short IPv4 form", "10.1", '"10.1" is not'],
    ["a hex IPv4 form", "0x0a000001", '"0x0a000001" is not'],
    ["a prefix too long", "10.0.0.0/33", '"10.0.0.0/33" is not'],
    ["a prefix that is not a number", "10.0.0.0/8x", '"10.0.0.0/8x" is not'],
    ["a keyword", "loopback", '"loopback" is not'],
    ["one bad entry among good ones", "10.0.0.1, 300.0.0.1", '"300.0.0.1" is not'],
  ])("refuses %s", (_, raw, message) => {
    expect(() => parseTrustedProxies(raw)).toThrow(message);
  });

  it("a bad entry stops the start naming the setting", () => {
    expect(() => parseEnv({ SWITCHYARD_TRUST_PROXY: "10.0.0.1,proxy" })).toThrow(
      'invalid setting SWITCHYARD_TRUST_PROXY="10.0.0.1,proxy": "proxy" is not an IP address or CIDR range',
    );
    expect(parseEnv({ SWITCHYARD_TRUST_PROXY: "10.0.0.0/8" }).SWITCHYARD_TRUST_PROXY).toBe("10.0.0.0/8");
  });
});

describe("proxyView", () => {
  const proxies = parseTrustedProxies("10.0.0.0/8, fd00::/8");
  const forged = {
    host: "dash.example",
    "x-forwarded-for": "1.2.3.4",
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "https",
    "x-forwarded-port": "443",
    forwarded: "for=1.2.3.4;host=evil.example",
    "x-switchyard-client-address": "1.2.3.4",
    "x-switchyard-path": "/admin",
    "x-switchyard-source": "sim",
  };
  const ALL_FORWARDING = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded"];
  const INTERNAL = ["x-switchyard-client-address", "x-switchyard-path"];

  it.each<[string, Record<string, string | string[]>, string | undefined, ProxyView]>([
    [
      "an untrusted peer's forwarding and internal headers are dropped; the client is the peer",
      forged,
      "203.0.113.9",
      { drop: [...ALL_FORWARDING, ...INTERNAL], clientAddress: "203.0.113.9" },
    ],
    [
      "an untrusted peer over IPv4-mapped IPv6 is keyed as IPv4",
      { "x-forwarded-for": "1.2.3.4" },
      "::ffff:203.0.113.9",
      { drop: ["x-forwarded-for"], clientAddress: "203.0.113.9" },
    ],
    ["no socket address", {}, undefined, { drop: [], clientAddress: "unknown" }],
    [
      "a trusted proxy keeps its forwarding headers; the client is the address it saw",
      forged,
      "10.0.0.2",
      { drop: INTERNAL, clientAddress: "1.2.3.4" },
    ],
    [
      "a trusted proxy over IPv4-mapped IPv6",
      { "x-forwarded-for": "1.2.3.4" },
      "::ffff:10.0.0.2",
      { drop: [], clientAddress: "1.2.3.4" },
    ],
    [
      "a client's own X-Forwarded-For before the proxy's entry proves nothing: the rightmost untrusted entry",
      { "x-forwarded-for": "6.6.6.6, 1.2.3.4" },
      "10.0.0.2",
      { drop: [], clientAddress: "1.2.3.4" },
    ],
    [
      "trusted hops on the right are skipped",
      { "x-forwarded-for": "6.6.6.6, 1.2.3.4, 10.0.0.7, 10.0.0.8" },
      "10.0.0.2",
      { drop: [], clientAddress: "1.2.3.4" },
    ],
    [
      "several X-Forwarded-For headers read as one list",
      { "x-forwarded-for": ["6.6.6.6", "1.2.3.4, 10.0.0.7"] },
      "10.0.0.2",
      { drop: [], clientAddress: "1.2.3.4" },
    ],
    [
      "every hop trusted: the leftmost",
      { "x-forwarded-for": "10.0.0.9, 10.0.0.8" },
      "10.0.0.2",
      { drop: [], clientAddress: "10.0.0.9" },
    ],
    ["no X-Forwarded-For from a trusted proxy: the proxy", {}, "10.0.0.2", { drop: [], clientAddress: "10.0.0.2" }],
    [
      "an entry that is not an address stops the walk at the nearest hop named",
      { "x-forwarded-for": "1.2.3.4, garbage, 10.0.0.7" },
      "10.0.0.2",
      { drop: [], clientAddress: "10.0.0.7" },
    ],
    [
      "ports and brackets on entries, empty entries",
      { "x-forwarded-for": "[2001:db8::5]:4711, 1.2.3.4:5678, " },
      "fd00::1",
      { drop: [], clientAddress: "1.2.3.4" },
    ],
    [
      "IPv6 clients",
      { "x-forwarded-for": "2001:db8::5, fd00::7" },
      "fd00::1",
      { drop: [], clientAddress: "2001:db8::5" },
    ],
  ])("%s", (_, headers, peer, want) => {
    expect(proxyView(headers, peer, proxies)).toEqual(want);
  });

  it("unset SWITCHYARD_TRUST_PROXY trusts nobody, loopback included", () => {
    expect(proxyView(forged, "127.0.0.1", parseTrustedProxies(undefined))).toEqual({
      drop: [...ALL_FORWARDING, ...INTERNAL],
      clientAddress: "127.0.0.1",
    });
  });
});
