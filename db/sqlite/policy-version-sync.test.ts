import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { insertVersion } from "../store/control";
import { sqliteStore } from "../store/store";
import { versionDocumentSync } from "./policy-version-sync";

describe("versionDocumentSync", () => {
  it("reads a stored version's document as the store wrote it, and null for a version or kind never stored", async () => {
    const db = testDb();
    const row = { kind: "routing" as const, author: "a", comment: "", createdAt: 1, basedOn: null };
    await insertVersion(sqliteStore(db), { ...row, version: 1, document: { temperature: 0.5, busy: { a: null } } });
    expect(versionDocumentSync(db, "routing", 1)).toEqual({ document: { temperature: 0.5, busy: { a: null } } });
    expect(versionDocumentSync(db, "routing", 2)).toBeNull();
    expect(versionDocumentSync(db, "frontend", 1)).toBeNull();
  });
});
