export type AppErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "UNPROCESSABLE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL"
  | "UNAVAILABLE";

const httpStatus: Record<AppErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

// Next bundles route handlers apart from the server process (which runs the ingest worker pool), so one process can
// hold several copies of this class: a global brand lets `instanceof AppError` recognise every copy's errors.
const brand = Symbol.for("switchyard.AppError");

/** The error server code throws; routers and route handlers map it to HTTP or tRPC. */
export class AppError extends Error {
  readonly [brand] = true;

  static [Symbol.hasInstance](value: unknown): value is AppError {
    return typeof value === "object" && value !== null && (value as { [brand]?: unknown })[brand] === true;
  }

  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return httpStatus[this.code];
  }
}

/**
 * HTTP status and a client-safe message for any thrown value (5xx details are masked, except UNAVAILABLE's, which
 * says what to do: try again after `details.retry_after` seconds).
 */
export function toHttpError(err: unknown): { status: number; message: string; retryAfter?: number } {
  if (err instanceof AppError && err.code === "UNAVAILABLE")
    return { status: 503, message: err.message, retryAfter: retryAfterOf(err) };
  if (err instanceof AppError && err.status < 500) return { status: err.status, message: err.message };
  return { status: 500, message: "internal error" };
}

/** Seconds a client should wait before trying again (an UNAVAILABLE error's details.retry_after, else 1). */
export function retryAfterOf(err: AppError): number {
  const v = (err.details as { retry_after?: unknown } | undefined)?.retry_after;
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.ceil(v) : 1;
}
