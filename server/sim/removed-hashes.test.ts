import { describe, expect, it } from "vitest";
import { StringOut, toJsonLine } from "./json-lines";
import { removedCount, removedEvent } from "./event-builders";
import { hashList, PrefixIndex } from "./prefix-index";
import { RemovedHashes } from "./removed-hashes";
import { buildPrefix } from "./stream";
import { toDecimal } from "./hashing";

/** A list of the given hashes: [hi, lo] halves (their decimal) or a name. */
function listOf(items: readonly ([number, number] | string)[]): RemovedHashes {
  const out = new RemovedHashes();
  for (const item of items)
    if (typeof item === "string") out.push(1, 2, item);
    else out.push(item[0], item[1], null);
  return out;
}

function items(list: RemovedHashes): string {
  const out = new StringOut();
  list.writeItems(out);
  return out.s;
}

describe("RemovedHashes: halves kept, strings only when read", () => {
  it.each([
    ["empty", [], []],
    ["one small", [[0, 7]], ["7"]],
    ["lo above 2^31", [[0, 0xffffffff]], ["4294967295"]],
    ["u64 max", [[0xffffffff, 0xffffffff]], ["18446744073709551615"]],
    [
      "several",
      [
        [1, 0],
        [0x80000000, 5],
        [12345, 678910],
      ],
      [toDecimal(1, 0), toDecimal(0x80000000, 5), toDecimal(12345, 678910)],
    ],
    ["names between halves", ["t1", [0, 3], "t0"], ["t1", "3", "t0"]],
  ] as const)("%s", (_name, input, strings) => {
    const list = listOf(input as unknown as ([number, number] | string)[]);
    expect(list.length).toBe(strings.length);
    expect(list.strings()).toEqual(strings);
    // The line's items are what joining the strings wrote before.
    expect(items(list)).toBe(strings.length ? `"${strings.join('","')}"` : "");
    expect(list.slice(1, list.length).strings()).toEqual(strings.slice(1));
  });

  it("a kv.removed event: the same line and the same object as with the strings in it", () => {
    const list = listOf([[0, 9], [0xdeadbeef, 0xfeedface], "name"]);
    const event = removedEvent("w0", list, "capacity", 1234) as unknown as Record<string, unknown>;
    event.id = "r-kr-1";
    const expected = {
      id: "r-kr-1",
      kind: "kv.removed",
      ts: 1234,
      worker_id: "w0",
      block_hashes: ["9", toDecimal(0xdeadbeef, 0xfeedface), "name"],
      reason: "capacity",
    };
    expect(toJsonLine(event as never)).toBe(JSON.stringify(expected));
    expect(JSON.parse(JSON.stringify(event))).toEqual(expected);
    expect(event.block_hashes).toEqual(expected.block_hashes);
  });

  it.each([0, 1, 3])("removedCount of a kv.removed event of %i blocks: its length, no strings made", (n) => {
    const list = listOf(Array.from({ length: n }, (_, i) => [0, i] as [number, number]));
    const event = removedEvent("w0", list, "capacity", 1) as unknown as { block_hashes: string[] };
    expect(removedCount(event)).toBe(n);
    // Still the lazy getter: counting did not make the strings.
    expect(Object.getOwnPropertyDescriptor(event, "block_hashes")?.get).toBeTypeOf("function");
    expect(event.block_hashes).toHaveLength(n);
    expect(removedCount({ block_hashes: ["1", "2"] })).toBe(2);
  });

  it("the prefix index gives back a view's hashes and a named list's names", () => {
    const index = new PrefixIndex();
    const view = buildPrefix(16, [[42, 16 * 40, 0]]).view;
    const named = hashList(["a", "b"]);
    const out = new RemovedHashes();
    for (let i = 0; i < view.length; i++) index.pushTo(out, index.ensureAt(view, i));
    for (let i = 0; i < 2; i++) index.pushTo(out, index.ensureAt(named, i));
    expect(out.strings()).toEqual([...view.seq, "a", "b"]);
    for (let i = 0; i < view.length; i++) expect(index.hashOf(index.idAt(view, i))).toBe(view.seq[i]);
  });
});
