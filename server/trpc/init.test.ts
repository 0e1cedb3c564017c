import { TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { useTempServerEnv } from "@/test/server-env";
import { AppError } from "../errors";
import { log } from "../observability/logger";
import { clientMessage } from "./init";

const zodError = z.object({ a: z.number() }).safeParse({}).error!;
const overflow = new RangeError("Maximum call stack size exceeded");

describe("clientMessage: only AppError messages and fixed text reach a client", () => {
  it.each<[string, TRPC_ERROR_CODE_KEY, unknown, number, string]>([
    ["an AppError below 500", "CONFLICT", new AppError("CONFLICT", "version 3 is stale"), 409, "version 3 is stale"],
    ["an AppError from 500", "INTERNAL_SERVER_ERROR", new AppError("INTERNAL", "/var/lib/db"), 500, "internal error"],
    ["zod issues", "BAD_REQUEST", zodError, 400, "invalid input"],
    ["an input the parser choked on", "BAD_REQUEST", overflow, 400, "bad request"],
    [
      "a body that is not JSON",
      "PARSE_ERROR",
      new SyntaxError("Unexpected token } at 7"),
      400,
      "bad request: the input is not valid JSON",
    ],
    ["an unknown procedure", "NOT_FOUND", undefined, 404, "no such procedure"],
    ["a thrown Error", "INTERNAL_SERVER_ERROR", new Error("SQLITE_CORRUPT at /data/x.db"), 500, "internal error"],
    ["a 4xx without a cause", "CONFLICT", undefined, 409, "bad request"],
  ])("%s → %s", (_, code, cause, status, want) => {
    const message = cause instanceof Error ? cause.message : 'tRPC\'s own text naming "secret.path"';
    expect(clientMessage(new TRPCError({ code, message, cause }), status)).toBe(want);
  });
});

// The probe's replay through the real HTTP handler: 100,000 nested arrays as a procedure's input made superjson
// overflow the stack, and tRPC answered 400 with "Maximum call stack size exceeded".
describe("the tRPC route with deeply nested input", () => {
  let restore: () => Promise<void>;
  let handler: (req: Request) => Promise<Response>;
  let token = "";

  beforeAll(async () => {
    ({ restore } = await useTempServerEnv("switchyard-trpc-errors-", "sy_test_token_0123456789abcdefXY"));
    handler = (await import("@/app/api/trpc/[trpc]/route")).POST;
    const { serverStore } = await import("@/server/runtime");
    const { createToken } = await import("@/server/auth/tokens");
    ({ token } = await createToken(serverStore(), { name: "t", scope: "admin", createdBy: "test" }, Date.now()));
  });
  afterAll(async () => {
    (await import("@/server/runtime")).serverEngine().db!.$client.close();
    await restore?.();
  });

  const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
  const objects = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
  const call = (path: string, init: { body?: string; input?: string } = {}, auth = true) =>
    handler(
      new Request(`http://localhost/api/trpc/${path}${init.input ? `?input=${encodeURIComponent(init.input)}` : ""}`, {
        method: init.body === undefined ? "GET" : "POST",
        body: init.body,
        headers: { "content-type": "application/json", ...(auth && { authorization: `Bearer ${token}` }) },
      }),
    );
  type Reply = { error: { json: { message: string; data: { code: string; issues: unknown } } } };
  const INTERNAL = /Maximum call stack|RangeError|SyntaxError|superjson|node_modules|\bat \w+ \(/;

  it.each<[string, () => Promise<Response>]>([
    ["a mutation's input", () => call("tokens.revoke", { body: `{"json":${arrays(100_000)}}` })],
    ["a mutation's nested objects", () => call("tokens.revoke", { body: `{"json":${objects(100_000)}}` })],
    [
      "a mutation's superjson meta",
      () => call("tokens.revoke", { body: `{"json":1,"meta":{"values":${arrays(100_000)}}}` }),
    ],
    ["a query's input", () => call("sessions.list", { input: `{"json":${arrays(20_000)}}` })],
  ])("%s: 400 bad request, no internal text, and the server answers the next call", async (_, send) => {
    const res = await send();
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toMatch(INTERNAL);
    expect((JSON.parse(text) as Reply).error.json).toMatchObject({
      message: "bad request",
      data: { code: "BAD_REQUEST" },
    });
    const next = await call("tokens.list");
    expect(next.status).toBe(200);
  });

  it("keeps zod's issues field by field under a fixed message, and its own refusals' texts", async () => {
    const res = await call("tokens.create", { body: `{"json":{"name":"","scope":"root"}}` });
    expect(res.status).toBe(400);
    const { json } = ((await res.json()) as Reply).error;
    expect(json.message).toBe("invalid input");
    expect(json.data.issues).toEqual([
      { path: "name", message: "required" },
      { path: "scope", message: expect.any(String) },
    ]);
    const anonymous = (await (await call("tokens.list", {}, false)).json()) as Reply;
    expect(anonymous.error.json).toMatchObject({ message: "sign in first", data: { code: "UNAUTHORIZED" } });
    const stale = (await (await call("tokens.revoke", { body: `{"json":{"id":99}}` })).json()) as Reply;
    expect(stale.error.json.message).toBe("token 99 does not exist or is already revoked");
    const unknown = (await (await call("nope.nothing")).json()) as Reply;
    expect(unknown.error.json.message).toBe("no such procedure");
  });

  it("masks a procedure's internal failure", async () => {
    const error = vi.spyOn(log(), "error").mockImplementation(() => {});
    const { serverStore } = await import("@/server/runtime");
    const store = serverStore();
    const db = vi.spyOn(store.db, "select").mockImplementation(() => {
      throw new Error("SQLITE_CORRUPT: database disk image is malformed at /data/switchyard.db");
    });
    try {
      const res = await call("tokens.list");
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toMatch(/SQLITE|\/data\//);
      expect((JSON.parse(text) as Reply).error.json.message).toBe("internal error");
      // The reason goes to the server's log instead, as JSON at error level.
      expect(error).toHaveBeenCalledWith(
        { path: "tokens.list", err: expect.stringContaining("SQLITE_CORRUPT") },
        "trpc failed",
      );
    } finally {
      db.mockRestore();
      error.mockRestore();
    }
  });
});
