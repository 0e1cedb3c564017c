import { describe, expect, it } from "vitest";
import { utf8Text } from "./utf8";

describe("utf8Text", () => {
  it.each([
    ["empty", Buffer.alloc(0)],
    ["ascii ndjson", Buffer.from('{"kind":"kv.stored","block_hashes":["18446744073709551615"]}\n{"a":1}\n')],
    ["control characters and DEL", Buffer.from([0, 9, 10, 13, 31, 127])],
    ["multi-byte UTF-8", Buffer.from('{"worker_id":"wörker-✓","note":"日本 😀"}')],
    ["invalid UTF-8 (lone continuation, truncated sequence)", Buffer.from([0x7b, 0x80, 0x22, 0xe2, 0x82])],
    ["a high byte at the very end", Buffer.from([0x61, 0x62, 0xff])],
  ])("%s reads as Buffer#toString('utf8') does", (_name, bytes) => {
    expect(utf8Text(bytes)).toBe(bytes.toString("utf8"));
    const copy = new Uint8Array(bytes.byteLength + 4).subarray(2, 2 + bytes.byteLength);
    copy.set(bytes);
    expect(utf8Text(copy)).toBe(bytes.toString("utf8"));
  });
});
