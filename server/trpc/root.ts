import "server-only";
import { overviewRouter } from "../routers/overview";
import { workersRouter } from "../routers/workers";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  overview: overviewRouter,
  workers: workersRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
