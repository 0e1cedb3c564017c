import { sqliteStore } from "../../db/store/store";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { appRouter, createCaller } from "../trpc/root";
import type { Actor, Requirement, Role } from "./roles";

type Proc = { _def: { meta?: { role?: Requirement }; type: string } };
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, Proc>).sort(([a], [b]) =>
  a.localeCompare(b),
);

const CALLERS: [string, Actor | null][] = [
  ["signed out", null],
  ["viewer", { kind: "user", id: 1, name: "v", role: "viewer" }],
  ["operator", { kind: "user", id: 2, name: "o", role: "operator" }],
  ["admin", { kind: "user", id: 3, name: "a", role: "admin" }],
];

type Outcome = "allowed" | "UNAUTHORIZED" | "FORBIDDEN";

/** What each caller gets for a procedure that declares need. */
const MATRIX: Record<Requirement, Record<string, Outcome>> = {
  public: { "signed out": "allowed", viewer: "allowed", operator: "allowed", admin: "allowed" },
  viewer: { "signed out": "UNAUTHORIZED", viewer: "allowed", operator: "allowed", admin: "allowed" },
  operator: { "signed out": "UNAUTHORIZED", viewer: "FORBIDDEN", operator: "allowed", admin: "allowed" },
  admin: { "signed out": "UNAUTHORIZED", viewer: "FORBIDDEN", operator: "FORBIDDEN", admin: "allowed" },
};

/** The procedures whose role matters most, pinned so a router cannot quietly lower them. */
const PINNED: [string, Role][] = [
  ["policies.publish", "operator"],
  ["policies.rollback", "operator"],
  ["policies.targets.upsert", "operator"],
  ["users.invite", "admin"],
  ["users.setRole", "admin"],
  ["users.setDisabled", "admin"],
  ["users.list", "admin"],
  ["tokens.create", "admin"],
  ["tokens.revoke", "admin"],
  ["tokens.list", "admin"],
  ["sessions.list", "viewer"],
  ["overview.summary", "viewer"],
];

/** Call a procedure by its dotted path with no input; the outcome is only about authorization. */
async function outcome(actor: Actor | null, path: string): Promise<Outcome> {
  let fn: unknown = createCaller({ store: sqliteStore(testDb()), now: () => 1_800_000_000_000, actor });
  for (const part of path.split(".")) fn = (fn as Record<string, unknown>)[part];
  try {
    await (fn as (input?: unknown) => Promise<unknown>)(undefined);
    return "allowed";
  } catch (err) {
    if (err instanceof TRPCError && (err.code === "UNAUTHORIZED" || err.code === "FORBIDDEN")) return err.code;
    return "allowed"; // past authorization: refused for its input, missing data, etc.
  }
}

describe("every procedure declares a role", () => {
  it("the router has procedures", () => {
    expect(procedures.length).toBeGreaterThan(10);
  });

  it.each(procedures.map(([path, p]) => [path, p._def.meta?.role ?? "(none)"]))("%s declares %s", (_path, role) => {
    expect(["viewer", "operator", "admin"]).toContain(role);
  });

  it.each(PINNED)("%s needs %s", (path, role) => {
    const found = procedures.find(([p]) => p === path);
    expect(found?.[1]._def.meta?.role, path).toBe(role);
  });
});

describe("role × procedure matrix", () => {
  it.each(
    procedures.flatMap(([path, p]) =>
      CALLERS.map(([who, actor]) => [path, who, actor, p._def.meta?.role ?? "admin"] as const),
    ),
  )("%s as %s", async (path, who, actor, need) => {
    expect(await outcome(actor, path)).toBe(MATRIX[need][who]);
  });
});
