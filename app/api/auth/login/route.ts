import { z } from "zod";
import { isBusy } from "@/db/sqlite/client";
import { checkPassword } from "@/server/auth/accounts";
import { DEVICE_COOKIE, knownDevice } from "@/server/auth/devices";
import { clientAddress } from "@/server/auth/request";
import { readCookie } from "@/server/auth/sign-in-sessions";
import { authBody, signedIn } from "@/server/auth/routes";
import { AppError } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { loginLimiter, serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const input = z.object({
  username: z.string().trim().toLowerCase().min(1, "required").max(64),
  password: z.string().min(1, "required").max(256),
});

/**
 * Sign in with username and password. Each attempt is counted before the password is checked, per account and per
 * address; a browser that signed in to this account before (its known-device cookie) is held to its own limit.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const { username, password } = await authBody(req, input);
    const s = serverStore();
    const device = await knownDevice(s, readCookie(req.headers.get("cookie"), DEVICE_COOKIE), username, Date.now());
    const limiter = loginLimiter();
    const attempt = await limiter.reserve({ account: username, address: clientAddress(req), device }, Date.now());
    if ("blocked" in attempt)
      return Response.json(
        { error: attempt.blocked.message },
        { status: 429, headers: { "retry-after": String(attempt.blocked.retryAfter) } },
      );
    const userId = await checkPassword(s, username, password);
    if (userId === null) throw new AppError("UNAUTHORIZED", "wrong username or password");
    await limiter.succeed(attempt.ticket);
    return await signedIn(req, userId, Date.now());
  } catch (err) {
    // The attempt could not be counted (another process holds the write lock): no answer without it.
    if (isBusy(err))
      return Response.json({ error: "busy, try again" }, { status: 503, headers: { "retry-after": "1" } });
    return errorResponse(err);
  }
}
