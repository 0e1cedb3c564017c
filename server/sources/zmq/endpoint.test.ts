import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testDb } from "../../../test/db";
import { outboundPolicy } from "../../outbound/policy";
import { sqliteSink } from "../sink";
import type { SourceReport } from "../status";
import { zmqSourceConfig } from "../../../lib/sources/zmq-config";
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

describe("ipc:// sockets", () => {
  const made: string[] = [];
  afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  const folder = () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-ipc-")));
    made.push(dir);
    return { folder: dir, field: "config.endpoint", setting: "SWITCHYARD_IMPORT_DIR" };
  };

  it("a relative name lands inside the folder", async () => {
    const c = folder();
    expect(await checkedEndpoint("ipc://vllm/kv.sock", policy, undefined, c)).toBe(`ipc://${c.folder}/vllm/kv.sock`);
  });

  it.each([
    ["ipc:///run/docker.sock", "no absolute path"],
    ["ipc://../kv.sock", '".."'],
    ["ipc://a/../../kv.sock", '".."'],
  ])("%s is refused naming the rule and the setting", async (endpoint, rule) => {
    const err = await checkedEndpoint(endpoint, policy, undefined, folder()).catch((e: Error) => e);
    expect(String(err)).toContain("config.endpoint");
    expect(String(err)).toContain("SWITCHYARD_IMPORT_DIR");
    expect(String(err)).toContain(rule);
  });

  it("a link at the socket's name or on the way is refused", async () => {
    const c = folder();
    fs.symlinkSync("/run", path.join(c.folder, "run"));
    fs.symlinkSync("/run/docker.sock", path.join(c.folder, "kv.sock"));
    for (const endpoint of ["ipc://run/docker.sock", "ipc://kv.sock"])
      await expect(checkedEndpoint(endpoint, policy, undefined, c)).rejects.toThrow(/link/);
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
