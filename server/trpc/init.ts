import "server-only";
import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { ZodError } from "zod";
import type { Store } from "../../db/store/store";
import { satisfies, type Actor, type Requirement } from "../auth/roles";
import { AppError } from "../errors";
import { transformer } from "./transformer";

/**
 * Request-free context: everything a procedure needs, injectable in tests. store is the one store every procedure
 * reads and writes (either engine); actor is the caller (null: signed out).
 */
export type InnerContext = { store: Store; now: () => number; actor?: Actor | null };

/** Every procedure declares the role it needs; the role-matrix test walks the router and reads it. */
export type Meta = { role: Requirement };

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
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
} as const;

/** What tRPC's own refusals (no AppError, no zod issues behind them) say: fixed text, never the error's message. */
const fixedMessages: Partial<Record<TRPC_ERROR_CODE_KEY, string>> = {
  PARSE_ERROR: "bad request: the input is not valid JSON",
  NOT_FOUND: "no such procedure",
  METHOD_NOT_SUPPORTED: "method not supported",
  PAYLOAD_TOO_LARGE: "request too large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported content type",
  TOO_MANY_REQUESTS: "too many requests",
};

/**
 * The one message a client sees for a tRPC error: an AppError's own below 500, "invalid input" beside zod's issues,
 * else fixed text by code ("internal error" from 500 on). An input that made the parser throw (a RangeError from
 * nesting too deep, say) is a plain "bad request".
 */
export function clientMessage(error: TRPCError, httpStatus: number): string {
  if (httpStatus >= 500) return "internal error";
  if (error.cause instanceof AppError) return error.cause.message;
  if (error.cause instanceof ZodError) return "invalid input";
  return fixedMessages[error.code] ?? "bad request";
}

const t = initTRPC
  .context<InnerContext>()
  .meta<Meta>()
  .create({
    transformer,
    errorFormatter({ shape, error }) {
      const masked = shape.data.httpStatus >= 500;
      return {
        ...shape,
        message: clientMessage(error, shape.data.httpStatus),
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          issues:
            !masked && error.cause instanceof ZodError
              ? error.cause.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }))
              : null,
          details: !masked && error.cause instanceof AppError ? (error.cause.details ?? null) : null,
        },
      };
    },
  });

/** Maps AppError thrown by logic into the matching tRPC error. */
const appErrors = t.middleware(async ({ next }) => {
  const res = await next();
  if (!res.ok && res.error.cause instanceof AppError) {
    throw new TRPCError({
      code: codes[res.error.cause.code],
      message: res.error.cause.message,
      cause: res.error.cause,
    });
  }
  return res;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Refuse callers below the role: no actor is UNAUTHORIZED, too low a role FORBIDDEN. */
function requireRole(need: Requirement) {
  return t.middleware(({ ctx, next }) => {
    const actor = ctx.actor ?? null;
    if (need !== "public" && !actor) throw new AppError("UNAUTHORIZED", "sign in first");
    if (!satisfies(actor?.role ?? null, need)) throw new AppError("FORBIDDEN", `needs the ${need} role`);
    return next({ ctx: { ...ctx, actor } });
  });
}

const declared = (role: Requirement) => t.procedure.meta({ role }).use(appErrors).use(requireRole(role));

// Reads are viewerProcedure, policy/source changes operatorProcedure, user and token management adminProcedure;
// publicProcedure is for the few things a signed-out browser needs and never appears in a data router.
export const publicProcedure = declared("public");
export const viewerProcedure = declared("viewer");
export const operatorProcedure = declared("operator");
export const adminProcedure = declared("admin");
