import "server-only";
import { z } from "zod";
import { userById, updateUser } from "../../db/store/auth";
import { AppError } from "../errors";
import { env } from "../env";
import { readBodyLimited } from "../http";
import { serverStore } from "../runtime";
import { isHttps, sameOriginRequest } from "./request";
import { DEVICE_COOKIE, deviceCookie, rememberDevice } from "./devices";
import { readCookie, sessionCookie, startSession } from "./sign-in-sessions";

const MAX_AUTH_BODY = 8 * 1024;

/** A same-origin JSON body of at most 8 KiB, validated by schema, refinements that wait included (errors name the field). */
export async function authBody<T>(req: Request, schema: z.ZodType<T>): Promise<T> {
  if (!sameOriginRequest(req)) throw new AppError("FORBIDDEN", "cross-origin request refused");
  const text = await readBodyLimited(req, MAX_AUTH_BODY);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "body must be JSON");
  }
  const parsed = await schema.safeParseAsync(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("BAD_REQUEST", `${issue.path.map(String).join(".") || "body"}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * A 200 reply that signs the user in after they gave their password: a new session cookie, this browser remembered
 * as one of their known devices (its cookie kept or made), and the login time noted.
 */
export async function signedIn(req: Request, userId: number, now: number): Promise<Response> {
  const s = serverStore();
  const session = await startSession(s, userId, now, env().SWITCHYARD_SESSION_HOURS * 3_600_000);
  const device = await rememberDevice(s, userId, readCookie(req.headers.get("cookie"), DEVICE_COOKIE), now);
  await updateUser(s, userId, { lastLoginAt: now });
  const user = (await userById(s, userId))!;
  const headers = new Headers({ "cache-control": "no-store" });
  headers.append("set-cookie", sessionCookie(session.value, session.expiresAt, isHttps(req)));
  headers.append("set-cookie", deviceCookie(device.value, device.expiresAt, isHttps(req)));
  return Response.json({ username: user.username, role: user.role }, { headers });
}
