import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { createInnerContext } from "@/server/trpc/init";
import { serverDb } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createInnerContext({ db: serverDb(), now: Date.now }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`trpc ${path ?? "?"} failed: ${error.message}`);
    },
  });
}

export { handler as GET, handler as POST };
