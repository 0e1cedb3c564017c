import { TRPCError } from "@trpc/server";
import { createCaller } from "@/server/trpc/root";
import { requestActor } from "@/server/auth/request";
import { serverStore } from "@/server/runtime";
import { sessionExport } from "@/server/analysis/session-export";
import { sessionChainsOf } from "@/db/store/export";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The session trace as a JSON download (same access as the pages); `?chains=1` adds each turn's full hash chains. */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  try {
    const store = serverStore();
    const actor = await requestActor(store, req, Date.now());
    const trace = await createCaller({ store, now: Date.now, actor }).sessions.byId({ id });
    const chains = new URL(req.url).searchParams.get("chains") === "1" ? await sessionChainsOf(store, id) : undefined;
    return new Response(JSON.stringify(sessionExport(trace, chains), null, 2), {
      headers: {
        "content-type": "application/json",
        "content-disposition": `attachment; filename="session-${id.replace(/[^\w.-]/g, "_")}.json"`,
      },
    });
  } catch (err) {
    // An id the procedure's input rejects (e.g. longer than any stored id) is the caller's mistake, not a server failure.
    if (err instanceof TRPCError && (err.code === "UNAUTHORIZED" || err.code === "FORBIDDEN")) {
      return Response.json(
        { error: "sign in or send a read token (Authorization: Bearer <token>)" },
        { status: err.code === "UNAUTHORIZED" ? 401 : 403 },
      );
    }
    if (err instanceof TRPCError && err.code === "BAD_REQUEST")
      return Response.json({ error: "invalid session id" }, { status: 400 });
    const notFound = err instanceof Error && /no session/.test(err.message);
    return Response.json({ error: notFound ? "session not found" : "export failed" }, { status: notFound ? 404 : 500 });
  }
}
