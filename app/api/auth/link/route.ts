import { z } from "zod";
import { describeLink } from "@/server/auth/accounts";
import { authBody } from "@/server/auth/routes";
import { errorResponse } from "@/server/http";
import { serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** What a setup or invite link is for (the secret travels in the body, never in a URL the server logs). */
export async function POST(req: Request): Promise<Response> {
  try {
    const { secret } = await authBody(req, z.object({ secret: z.string().min(1).max(200) }));
    return Response.json(await describeLink(serverStore(), secret, Date.now()));
  } catch (err) {
    return errorResponse(err);
  }
}
