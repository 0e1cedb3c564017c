import "server-only";
import { annotationsRouter } from "../routers/annotations";
import { overviewRouter } from "../routers/overview";
import { plannerRouter } from "../routers/planner";
import { policiesRouter } from "../routers/policies";
import { previewsRouter } from "../routers/previews";
import { routingRouter } from "../routers/routing";
import { sessionsRouter } from "../routers/sessions";
import { sourcesRouter } from "../routers/sources";
import { tokensRouter } from "../routers/tokens";
import { usersRouter } from "../routers/users";
import { tiersRouter } from "../routers/tiers";
import { workersRouter } from "../routers/workers";
import { alertsRouter } from "../routers/alerts";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  overview: overviewRouter,
  routing: routingRouter,
  planner: plannerRouter,
  workers: workersRouter,
  sessions: sessionsRouter,
  policies: policiesRouter,
  previews: previewsRouter,
  sources: sourcesRouter,
  users: usersRouter,
  tokens: tokensRouter,
  annotations: annotationsRouter,
  tiers: tiersRouter,
  alerts: alertsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
