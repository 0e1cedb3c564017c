import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import {
  checkHost,
  checkResolved,
  DEFAULT_DENY,
  describeRefusal,
  normalizeAddress,
  outboundPolicy,
  parseHostList,
} from "./policy";

const DENY = "SWITCHYARD_OUTBOUND_DENY";
const ALLOW = "SWITCHYARD_OUTBOUND_ALLOW";
const byDefault = outboundPolicy(undefined, undefined);

describe("the default policy", () => {
  it.each([
    ["169.254.169.254", DENY],
    ["169.254.170.2", DENY],
    ["[fe80::1]", DENY],
    ["[fe80::1%25eth0]", DENY],
    ["[::ffff:169.254.169.254]", DENY],
    ["[::ffff:a9fe:a9fe]", DENY],
    ["[fd00:ec2::254]", DENY],
    ["100.100.100.200", DENY],
    ["metadata.google.internal", DENY],
    ["METADATA.Google.Internal.", DENY],
    ["metadata", DENY],
    ["instance-data.ec2.internal", DENY],
    ["127.0.0.1", null],
    ["[::1]", null],
    ["10.1.2.3", null],
    ["192.168.0.5", null],
    ["localhost", null],
    ["vllm-a.svc.cluster.local", null],
    ["metadata-proxy.example", null],
  ])("%s → %s", (host, setting) => {
    expect(checkHost(byDefault, host)?.setting ?? null).toBe(setting);
  });

  it("refuses a name whose answers include a denied address, and a mapped one", () => {
    expect(checkResolved(byDefault, "ok.example", ["10.0.0.1", "169.254.169.254"])).toEqual({
      setting: DENY,
      host: "169.254.169.254",
    });
    expect(checkResolved(byDefault, "ok.example", ["::ffff:169.254.169.254"])?.setting).toBe(DENY);
    expect(checkResolved(byDefault, "ok.example", ["10.0.0.1", "::1"])).toBeNull();
  });

  it("lists what the docs say", () => {
    expect(DEFAULT_DENY).toEqual(expect.arrayContaining(["169.254.0.0/16", "fe80::/10", "metadata.google.internal"]));
  });
});

describe("SWITCHYARD_OUTBOUND_ALLOW and a set SWITCHYARD_OUTBOUND_DENY", () => {
  const allow = outboundPolicy(undefined, "10.0.0.0/8, prom.internal, ::1");
  it.each([
    ["10.1.2.3", [], null],
    ["[::1]", [], null],
    ["127.0.0.1", [], ALLOW],
    ["192.168.1.1", [], ALLOW],
    ["prom.internal", ["192.168.1.1"], null],
    ["a.prom.internal", ["192.168.1.1"], null],
    ["other.internal", ["10.9.9.9"], null],
    ["other.internal", ["192.168.1.1"], ALLOW],
    ["prom.internal", ["169.254.169.254"], DENY],
    ["169.254.1.1", [], DENY],
  ])("allow-list: %s resolving to %j → %s", (host, addresses, setting) => {
    expect(checkResolved(allow, host, addresses)?.setting ?? null).toBe(setting);
  });

  it("deny wins over allow", () => {
    const p = outboundPolicy("10.0.0.9", "10.0.0.0/8");
    expect(checkHost(p, "10.0.0.9")?.setting).toBe(DENY);
    expect(checkHost(p, "10.0.0.8")).toBeNull();
  });

  it("a set deny list replaces the default one; none denies nothing", () => {
    const p = outboundPolicy("10.0.0.0/8,internal.example", undefined);
    expect(checkHost(p, "169.254.169.254")).toBeNull();
    expect(checkHost(p, "10.1.2.3")?.setting).toBe(DENY);
    expect(checkHost(p, "db.internal.example")?.setting).toBe(DENY);
    expect(checkHost(outboundPolicy("none", undefined), "169.254.169.254")).toBeNull();
  });

  it("an IPv4-mapped range is an IPv4 range", () => {
    const p = outboundPolicy("::ffff:10.0.0.0/104", undefined);
    expect(checkHost(p, "10.2.3.4")?.setting).toBe(DENY);
  });
});

describe("parsing the settings", () => {
  it.each([
    ["10.0.0.0/33"],
    ["10.0.0.0/x"],
    ["10.1"],
    ["0x7f.0.0.1"],
    ["http://a"],
    ["a..b"],
    ["-a.example"],
    ["fe80::/129"],
    ["*.example.com"],
  ])("%s is refused", (entry) => {
    expect(() => parseHostList(`127.0.0.1,${entry}`)).toThrow(`entry ${JSON.stringify(entry)} is not a CIDR`);
  });

  it("names the setting and the entry, also when the dashboard starts", () => {
    expect(() => outboundPolicy(undefined, "10.0.0.0/99")).toThrow(`${ALLOW}: entry "10.0.0.0/99" is not a CIDR`);
    expect(() => parseEnv({ [DENY]: "169.254.0.0/16,bad host" })).toThrow(
      /^invalid setting SWITCHYARD_OUTBOUND_DENY=.*entry "bad host" is not a CIDR, IP address or host name$/,
    );
    expect(() => parseEnv({ [ALLOW]: "10.0.0.0/8,[::1]/200" })).toThrow(/SWITCHYARD_OUTBOUND_ALLOW=.*"\[::1\]\/200"/);
    expect(parseEnv({ [DENY]: "10.0.0.0/8, [fd00::]/8 , example.com", [ALLOW]: "::1" })[DENY]).toBeDefined();
  });

  it("describes and normalises", () => {
    expect(describeRefusal({ setting: DENY, host: "169.254.169.254" })).toBe(
      "169.254.169.254 is refused by SWITCHYARD_OUTBOUND_DENY",
    );
    expect(describeRefusal({ setting: ALLOW, host: "a" })).toBe("a is not allowed by SWITCHYARD_OUTBOUND_ALLOW");
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("[fe80::1]")).toBe("fe80::1");
    expect(normalizeAddress("example.com")).toBeNull();
  });
});
