import { describe, expect, it } from "vitest";
import { zmqSourceConfig } from "./zmq-config";

describe("zmqSourceConfig", () => {
  it("fills the defaults: every topic", () => {
    expect(zmqSourceConfig.parse({ endpoint: "tcp://vllm-0:5557", worker_id: "w1" })).toEqual({
      endpoint: "tcp://vllm-0:5557",
      topic: "",
      worker_id: "w1",
    });
  });

  it.each([
    ["hostname", { endpoint: "tcp://vllm-0.cluster.local:5557" }],
    ["IPv4", { endpoint: "tcp://10.0.0.7:5557" }],
    ["IPv6", { endpoint: "tcp://[::1]:5557" }],
    ["ipc path", { endpoint: "ipc://vllm/kv.sock" }],
    [
      "every optional field",
      {
        endpoint: "tcp://h:5557",
        topic: "kv-events",
        model: "llama-3-70b",
        block_size: 16,
        replay_endpoint: "tcp://h:5558",
      },
    ],
  ])("accepts %s", (_n, input) => {
    expect(zmqSourceConfig.safeParse({ worker_id: "w1", ...input }).success).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing endpoint", { worker_id: "w1" }, "endpoint", /^is required$/],
    ["http URL", { endpoint: "http://h:5557", worker_id: "w1" }, "endpoint", /tcp:\/\/host:port or ipc:\/\/name/],
    ["no port", { endpoint: "tcp://h", worker_id: "w1" }, "endpoint", /tcp:\/\/host:port/],
    ["port 0", { endpoint: "tcp://h:0", worker_id: "w1" }, "endpoint", /port must be 1 to 65535/],
    ["port above 65535", { endpoint: "tcp://h:70000", worker_id: "w1" }, "endpoint", /port must be 1 to 65535/],
    ["bind wildcard", { endpoint: "tcp://*:5557", worker_id: "w1" }, "endpoint", /tcp:\/\/host:port/],
    ["blank worker", { endpoint: "tcp://h:1", worker_id: "  " }, "worker_id", /is required/],
    ["long worker", { endpoint: "tcp://h:1", worker_id: "w".repeat(129) }, "worker_id", /./],
    ["zero block size", { endpoint: "tcp://h:1", worker_id: "w", block_size: 0 }, "block_size", /./],
    ["fractional block size", { endpoint: "tcp://h:1", worker_id: "w", block_size: 1.5 }, "block_size", /./],
    ["long topic", { endpoint: "tcp://h:1", worker_id: "w", topic: "t".repeat(257) }, "topic", /./],
    [
      "bad replay endpoint",
      { endpoint: "tcp://h:1", worker_id: "w", replay_endpoint: "h:2" },
      "replay_endpoint",
      /tcp:\/\/host:port/,
    ],
  ])("rejects %s, naming the field", (_n, input, field, message) => {
    const r = zmqSourceConfig.safeParse(input);
    expect(r.success).toBe(false);
    const issue = r.error!.issues[0]!;
    expect(issue.path).toEqual([field]);
    expect(issue.message).toMatch(message);
  });
});
