import { z } from "zod";
import { passwordSchema, redeemLink, usernameSchema } from "@/server/auth/accounts";
import { authBody, signedIn } from "@/server/auth/routes";
import { errorResponse } from "@/server/http";
import { serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const input = z.object({
  secret: z.string().min(1).max(200),
  username: usernameSchema.optional(),
  password: passwordSchema,
});

/** Use a one-time setup link (first admin) or invite link (set a password), then sign in. */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await authBody(req, input);
    const userId = await redeemLink(serverStore(), body, Date.now());
    return await signedIn(req, userId, Date.now());
  } catch (err) {
    return errorResponse(err);
  }
}
