import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { requestActor, sameOriginRequest } from "@/server/auth/request";
import { errorResponse, readBodyLimited } from "@/server/http";
import { AppError } from "@/server/errors";
import { appRouter } from "@/server/trpc/root";
import { createInnerContext } from "@/server/trpc/init";
import { serverStore } from "@/server/runtime";
import { log } from "@/server/observability/logger";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Largest tRPC request body (a batch of policy documents is far smaller).
const MAX_BODY = 1024 * 1024;

async function handler(req: Request) {
  try {
    if (!sameOriginRequest(req)) throw new AppError("FORBIDDEN", "cross-origin request refused");
    const body = req.method === "POST" ? await readBodyLimited(req, MAX_BODY) : undefined;
    const bounded = new Request(req.url, { method: req.method, headers: req.headers, body });
    return await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: bounded,
      router: appRouter,
      createContext: async () => {
        const store = serverStore();
        const actor = await requestActor(store, req, Date.now());
        return createInnerContext({ store, now: Date.now, actor });
      },
      onError({ error, path }) {
        if (error.code === "INTERNAL_SERVER_ERROR")
          log().error({ path: path ?? "?", err: error.message }, "trpc failed");
      },
    });
  } catch (err) {
    return errorResponse(err);
  }
}

export { handler as GET, handler as POST };
