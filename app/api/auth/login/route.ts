import { z } from "zod";
import { isBusy } from "@/db/client";
import { checkPassword } from "@/server/auth/accounts";
import { clientAddress } from "@/server/auth/request";
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

/** Sign in with username and password; failures are rate-limited per account and per address. */
export async function POST(req: Request): Promise<Response> {
  try {
    const { username, password } = await authBody(req, input);
    const limiter = loginLimiter();
    const address = clientAddress(req);
    const blocked = await limiter.check(username, address, Date.now());
    if (blocked)
      return Response.json(
        { error: blocked.message },
        { status: 429, headers: { "retry-after": String(blocked.retryAfter) } },
      );
    const userId = await checkPassword(serverStore(), username, password);
    if (userId === null) {
      await limiter.fail(username, address, Date.now());
      throw new AppError("UNAUTHORIZED", "wrong username or password");
    }
    await limiter.succeed(username);
    return await signedIn(req, userId, Date.now());
  } catch (err) {
    // The failure could not be counted (another process holds the write lock): no answer without it.
    if (isBusy(err))
      return Response.json({ error: "busy, try again" }, { status: 503, headers: { "retry-after": "1" } });
    return errorResponse(err);
  }
}
