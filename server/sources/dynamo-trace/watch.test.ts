import { describe, expect, it } from "vitest";
import { SQLITE_SINK } from "../sink.cases";
import { traceDirConfig } from "../../../lib/sources/dynamo-trace-config";
import { filesToImport } from "./watch";
import { watchCases } from "./watch.cases";

describe("filesToImport", () => {
  it.each([
    [
      "new trace files, oldest first; other files skipped",
      [
        { name: "b.jsonl.gz", size: 1, mtimeMs: 2 },
        { name: "a.jsonl", size: 1, mtimeMs: 1 },
        { name: "notes.txt", size: 1, mtimeMs: 0 },
      ],
      {},
      ["a.jsonl", "b.jsonl.gz"],
    ],
    [
      "unchanged files are not imported again",
      [{ name: "a.jsonl", size: 1, mtimeMs: 1 }],
      { "a.jsonl": { size: 1, mtimeMs: 1 } },
      [],
    ],
    [
      "grown files are",
      [{ name: "a.jsonl", size: 9, mtimeMs: 3 }],
      { "a.jsonl": { size: 1, mtimeMs: 1 } },
      ["a.jsonl"],
    ],
  ])("%s", (_, listing, seen, want) => expect(filesToImport(listing, seen)).toEqual(want));
});

describe("traceDirConfig", () => {
  it("defaults poll_seconds to 5 and names a bad field", () => {
    expect(traceDirConfig.parse({ path: "traces" })).toEqual({ path: "traces", poll_seconds: 5 });
    expect(traceDirConfig.safeParse({ path: "" }).error?.issues[0]?.path).toEqual(["path"]);
    expect(traceDirConfig.safeParse({ path: "traces", poll_seconds: 0 }).error?.issues[0]?.path).toEqual([
      "poll_seconds",
    ]);
  });
});

watchCases(SQLITE_SINK);
