import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../env";
import { DEFAULT_CLUSTER_ATTRIBUTES, parseClusterAttributes } from "./cluster-attributes";

const SETTING = "SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES";
const nine = Array.from({ length: 9 }, (_, i) => `attr${i}`).join(",");
const eight = Array.from({ length: 8 }, (_, i) => `attr${i}`).join(",");

describe("parseClusterAttributes", () => {
  it.each<[string, string | undefined, readonly string[]]>([
    ["unset: the default list", undefined, ["k8s.cluster.name", "service.namespace"]],
    ["one name", "deployment.environment", ["deployment.environment"]],
    ["names kept in their order", "service.namespace,k8s.cluster.name", ["service.namespace", "k8s.cluster.name"]],
    ["spaces around names dropped", " cloud.region , k8s.cluster.name ", ["cloud.region", "k8s.cluster.name"]],
    ["letters, digits, dots, underscores and dashes", "My_Attr-2.name", ["My_Attr-2.name"]],
    ["eight names", eight, eight.split(",")],
    ["a name of 128 characters", "a".repeat(128), ["a".repeat(128)]],
  ])("%s", (_name, raw, want) => {
    expect(parseClusterAttributes(raw)).toEqual(want);
  });

  it.each<[string, string, RegExp]>([
    ["an empty name between commas", "k8s.cluster.name,,service.namespace", /^name 2 is empty/],
    ["a trailing comma", "k8s.cluster.name,", /^name 2 is empty/],
    ["a leading comma", ",k8s.cluster.name", /^name 1 is empty/],
    ["only spaces", "   ", /^name 1 is empty/],
    ["a space inside a name", "k8s cluster", /^name "k8s cluster" may hold only letters, digits/],
    ["a slash", "k8s/cluster", /^name "k8s\/cluster" may hold only/],
    ["an equals sign (a key=value pair)", "k8s.cluster.name=prod", /may hold only/],
    ["a non-ASCII letter", "clüster", /may hold only/],
    ["more than eight names", nine, /^at most 8 attribute names \(got 9\)$/],
    ["a name over 128 characters", `k8s.cluster.name,${"a".repeat(129)}`, /^name 2 is longer than 128 characters$/],
  ])("refuses %s", (_name, raw, message) => {
    expect(() => parseClusterAttributes(raw)).toThrow(message);
  });
});

describe(`${SETTING} in the environment`, () => {
  it("unset or empty: the default list", () => {
    expect(parseEnv({})[SETTING]).toEqual(DEFAULT_CLUSTER_ATTRIBUTES);
    expect(parseEnv({ [SETTING]: "" })[SETTING]).toEqual(DEFAULT_CLUSTER_ATTRIBUTES);
  });

  it("set: its names in order", () => {
    expect(parseEnv({ [SETTING]: "service.namespace, k8s.cluster.name" })[SETTING]).toEqual([
      "service.namespace",
      "k8s.cluster.name",
    ]);
  });

  it.each([
    ["an empty name", "k8s.cluster.name,,service.namespace", "name 2 is empty"],
    ["a trailing comma", "k8s.cluster.name,", "name 2 is empty"],
    ["a space inside a name", "k8s cluster", "may hold only letters, digits"],
    ["another separator", "k8s.cluster.name;service.namespace", "may hold only letters, digits"],
    ["nine names", nine, "at most 8 attribute names"],
    ["a name of 129 characters", "a".repeat(129), "longer than 128 characters"],
    ["a value of 4,200 characters", "a,".repeat(2_100), "expected string to have <=4096 characters"],
  ])("%s stops start-up with one line naming the setting", (_name, raw, reason) => {
    let error: unknown;
    try {
      parseEnv({ [SETTING]: raw });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message.startsWith(`invalid setting ${SETTING}=`)).toBe(true);
    expect(message).toContain(reason);
    expect(message).not.toContain("\n");
  });
});
