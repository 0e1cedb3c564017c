import { describe, expect, it } from "vitest";
import { recordDroppedEvents } from "../../db/sqlite/sources";
import { droppedEventReports } from "../../db/store/sources";
import { sqliteStore } from "../../db/store/store";
import { testDb } from "../../test/db";
import { parseDroppedHeader, parseSourceHeader } from "./drops";

describe("dropped-events report", () => {
  it.each([
    [null, null],
    ["", null],
    ["0", null],
    ["150", 150],
    [" 42 ", 42],
    ["-3", null],
    ["1e6", null],
    ["12abc", null],
    ["9999999999999999", null],
  ])("header %j → %j", (value, expected) => expect(parseDroppedHeader(value)).toBe(expected));

  it.each([
    ["sim", "sim"],
    [null, "unknown"],
    ["<script>", "<script>"],
    ["has space", "unknown"],
    ["x".repeat(65), "unknown"],
  ])("source %j → %j", (value, expected) => expect(parseSourceHeader(value)).toBe(expected));

  it("keeps the highest running total per source, newest report first", async () => {
    const db = testDb();
    expect(await droppedEventReports(sqliteStore(db))).toEqual([]);
    recordDroppedEvents(db, "sim", 100, 1_000);
    recordDroppedEvents(db, "sim", 150, 2_000);
    recordDroppedEvents(db, "sim", 120, 3_000);
    recordDroppedEvents(db, "vllm-a", 7, 2_500);
    expect(await droppedEventReports(sqliteStore(db))).toEqual([
      { source: "vllm-a", dropped: 7, reportedAt: 2_500 },
      { source: "sim", dropped: 150, reportedAt: 2_000 },
    ]);
  });
});
