import "server-only";
import { overviewRouter } from "../routers/overview";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  overview: overviewRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
