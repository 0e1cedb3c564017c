import { describe, expect, it } from "vitest";
import { testDb } from "../../../test/db";
import { outboundPolicy } from "../../outbound/policy";
import { sqliteSink } from "../sink";
import type { SourceReport } from "../status";
import { zmqSourceConfig } from "./config";
import { checkedEndpoint } from "./endpoint";
import { startZmqSource } from "./subscriber";

const policy = outboundPolicy(undefined, undefined);
const answer = (address: string) => async () => [{ address, family: address.includes(":") ? 6 : 4 }];

describe("checkedEndpoint", () => {
  it.each([
    ["tcp://127.0.0.1:5557", undefined, "tcp://127.0.0.1:5557"],
    ["tcp://[::1]:5557", undefined, "tcp://[::1]:5557"],
    ["tcp://vllm-a:5557", answer("10.0.0.7"), "tcp://10.0.0.7:5557"],
    ["tcp://vllm-a:5557", answer("::ffff:10.0.0.7"), "tcp://10.0.0.7:5557"],
    ["tcp://vllm-a:5557", answer("fd00::7"), "tcp://[fd00::7]:5557"],
    ["ipc:///tmp/kv.sock", undefined, "ipc:///tmp/kv.sock"],
  ])("%s → %s", async (endpoint, resolve, expected) => {
    expect(await checkedEndpoint(endpoint, policy, resolve)).toBe(expected);
  });

  it.each([
    ["tcp://169.254.169.254:5557", undefined],
    ["tcp://[fe80::1]:5557", undefined],
    ["tcp://metadata.google.internal:5557", answer("10.0.0.7")],
    ["tcp://vllm-a:5557", answer("169.254.169.254")],
  ])("%s is refused", async (endpoint, resolve) => {
    await expect(checkedEndpoint(endpoint, policy, resolve)).rejects.toThrow("refused by SWITCHYARD_OUTBOUND_DENY");
  });
});

describe("a ZMQ source at a denied address", () => {
  it("never connects and says why", async () => {
    const errors: string[] = [];
    const report: SourceReport = { ok: async () => {}, error: async (_at, m) => void errors.push(m) };
    const config = zmqSourceConfig.parse({ endpoint: "tcp://169.254.169.254:5557", worker_id: "w" });
    const stop = startZmqSource(sqliteSink(testDb()), "kv", config, report, { flushMs: 20 });
    await expect
      .poll(() => errors[0], { timeout: 2_000 })
      .toBe("not connected to tcp://169.254.169.254:5557: refused by SWITCHYARD_OUTBOUND_DENY; retrying");
    await stop();
  });
});
