import superjson from "superjson";

// The tRPC transformer: superjson, with a fast path for values that are plain JSON already. superjson's serialize walks
// every value of an output to find what JSON cannot carry (dates, maps, undefined, NaN…), and copies each object and
// array it passes; for the chart procedures' thousands of numbers that walk allocated about twice the output itself
// (1.4 MB for the workers page's hour) on every refresh. A value with nothing for superjson to annotate is sent as
// `{ json: value }`, exactly the envelope superjson would have produced for it, without the copy; anything else goes
// through superjson. The client deserializes both with superjson, and inputs are deserialized by superjson as before.

/** Containers deeper than this go through superjson (the check recurses; tRPC's outputs are a few levels deep). */
const MAX_DEPTH = 64;
/** Keys superjson refuses (prototype pollution): a value holding one goes through superjson, which throws. */
const REFUSED = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Whether `value` is plain JSON as superjson sees it: null, booleans, strings, finite numbers other than -0, arrays (of
 * Array.prototype) and plain objects of those, with no object reached twice (superjson would record the sharing).
 * Everything else (undefined, NaN, ±Infinity, -0, bigint, Date, Map, Set, class instances, typed arrays…) is not.
 */
export function isPlainJson(value: unknown): boolean {
  const seen = new Set<object>();
  const plain = (v: unknown, depth: number): boolean => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return true;
      case "number":
        return Number.isFinite(v) && !(v === 0 && 1 / v < 0);
      case "object": {
        if (v === null) return true;
        if (depth >= MAX_DEPTH || seen.has(v)) return false;
        seen.add(v);
        if (Array.isArray(v)) {
          if (Object.getPrototypeOf(v) !== Array.prototype) return false;
          for (let i = 0; i < v.length; i++) {
            const x: unknown = v[i];
            // Numbers and nulls inline: the charts' columns are thousands of them.
            if (typeof x === "number") {
              if (!Number.isFinite(x) || (x === 0 && 1 / x < 0)) return false;
            } else if (x !== null && !plain(x, depth + 1)) return false;
          }
          return true;
        }
        const proto: unknown = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) return false;
        if (Object.getOwnPropertySymbols(v).length > 0) return false;
        for (const key of Object.keys(v)) {
          if (REFUSED.has(key) || !plain((v as Record<string, unknown>)[key], depth + 1)) return false;
        }
        return true;
      }
      default:
        return false;
    }
  };
  return plain(value, 0);
}

/** superjson's envelope for `value`: `{ json: value }` itself when it is plain JSON, else superjson's own. */
export function serializeOutput(value: unknown): { json: unknown; meta?: unknown } {
  return isPlainJson(value) ? { json: value } : superjson.serialize(value as never);
}

/** The server's transformer (the client uses superjson itself: both envelopes are superjson's). */
export const transformer = {
  serialize: serializeOutput,
  deserialize: <T>(payload: unknown): T => superjson.deserialize(payload as never),
};
