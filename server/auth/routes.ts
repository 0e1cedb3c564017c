import "server-only";
import { z } from "zod";
import { userById, updateUser } from "../../db/queries/auth";
import { AppError } from "../errors";
import { env } from "../env";
import { readBodyLimited } from "../http";
import { serverDb } from "../runtime";
import { isHttps, sameOriginRequest } from "./request";
import { sessionCookie, startSession } from "./sessions";

const MAX_AUTH_BODY = 8 * 1024;

/** A same-origin JSON body of at most 8 KiB, validated by schema (field errors name the field). */
export async function authBody<T>(req: Request, schema: z.ZodType<T>): Promise<T> {
  if (!sameOriginRequest(req)) throw new AppError("FORBIDDEN", "cross-origin request refused");
  const text = await readBodyLimited(req, MAX_AUTH_BODY);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "body must be JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("BAD_REQUEST", `${issue.path.map(String).join(".") || "body"}: ${issue.message}`);
  }
  return parsed.data;
}

/** A 200 reply that signs the user in (new session cookie) and notes the login time. */
export function signedIn(req: Request, userId: number, now: number): Response {
  const db = serverDb();
  const { value, expiresAt } = startSession(db, userId, now, env().SWITCHYARD_SESSION_HOURS * 3_600_000);
  updateUser(db, userId, { lastLoginAt: now });
  const user = userById(db, userId)!;
  return Response.json(
    { username: user.username, role: user.role },
    { headers: { "set-cookie": sessionCookie(value, expiresAt, isHttps(req)), "cache-control": "no-store" } },
  );
}
