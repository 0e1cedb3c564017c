import "server-only";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import type { Db } from "../../db/client";
import { AppError } from "../errors";

/** Request-free context: everything a procedure needs, injectable in tests. */
export type InnerContext = { db: Db; now: () => number };

export function createInnerContext(opts: InnerContext): InnerContext {
  return opts;
}

const codes = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  UNPROCESSABLE: "UNPROCESSABLE_CONTENT",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
  INTERNAL: "INTERNAL_SERVER_ERROR",
} as const;

const t = initTRPC.context<InnerContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const masked = shape.data.httpStatus >= 500;
    return {
      ...shape,
      message: masked ? "internal error" : shape.message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        issues: error.cause instanceof ZodError ? error.cause.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })) : null,
        details: !masked && error.cause instanceof AppError ? (error.cause.details ?? null) : null,
      },
    };
  },
});

/** Maps AppError thrown by logic into the matching tRPC error. */
const appErrors = t.middleware(async ({ next }) => {
  const res = await next();
  if (!res.ok && res.error.cause instanceof AppError) {
    throw new TRPCError({ code: codes[res.error.cause.code], message: res.error.cause.message, cause: res.error.cause });
  }
  return res;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(appErrors);

// Role-declared procedures: reads are viewerProcedure, policy/source changes operatorProcedure, user and
// token management adminProcedure. Until sign-in lands they admit everyone; every router already says
// which role each procedure needs so enforcement is one change here.
export const viewerProcedure = publicProcedure;
export const operatorProcedure = publicProcedure;
export const adminProcedure = publicProcedure;
