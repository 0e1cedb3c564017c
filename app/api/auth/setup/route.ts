import { setPasswordInput } from "@/lib/password-rules";
import { redeemLink } from "@/server/auth/accounts";
import { authBody, signedIn } from "@/server/auth/routes";
import { errorResponse } from "@/server/http";
import { serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Use a one-time setup link (first admin) or invite link (set a password, which must pass the rules), then sign in. */
export async function POST(req: Request): Promise<Response> {
  try {
    const body = await authBody(req, setPasswordInput);
    const userId = await redeemLink(serverStore(), body, Date.now());
    return await signedIn(req, userId, Date.now());
  } catch (err) {
    return errorResponse(err);
  }
}
