import { isHttps, sameOriginRequest } from "@/server/auth/request";
import { clearedSessionCookie, endSession, readCookie, SESSION_COOKIE } from "@/server/auth/sign-in-sessions";
import { serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** End this browser's session and go to the sign-in page (a plain form post works without script). */
export async function POST(req: Request): Promise<Response> {
  if (!sameOriginRequest(req)) return Response.json({ error: "cross-origin request refused" }, { status: 403 });
  await endSession(serverStore(), readCookie(req.headers.get("cookie"), SESSION_COOKIE));
  return new Response(null, {
    status: 303,
    headers: { location: "/login", "set-cookie": clearedSessionCookie(isHttps(req)), "cache-control": "no-store" },
  });
}
