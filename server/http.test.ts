import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { errorResponse, readBodyLimited } from "./http";

const MAX = 1024;

/** A request whose body is streamed in chunks without a Content-Length; counts the bytes pulled. */
function streamed(chunk: Uint8Array, chunks: number, headers: Record<string, string> = {}) {
  const pulled = { bytes: 0, cancelled: false };
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (sent++ >= chunks) return c.close();
        pulled.bytes += chunk.byteLength;
        c.enqueue(chunk);
      },
      cancel() {
        pulled.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  const req = new Request("http://local/x", { method: "POST", body, headers, duplex: "half" } as RequestInit);
  return { req, pulled };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

describe("readBodyLimited", () => {
  it.each<[string, () => Request, string]>([
    [
      "a string body without Content-Length",
      () => new Request("http://local/x", { method: "POST", body: "héllo" }),
      "héllo",
    ],
    [
      "a body with an exact Content-Length",
      () => new Request("http://local/x", { method: "POST", body: "abc", headers: { "content-length": "3" } }),
      "abc",
    ],
    [
      "a body of exactly max bytes",
      () => new Request("http://local/x", { method: "POST", body: "x".repeat(MAX) }),
      "x".repeat(MAX),
    ],
    ["no body", () => new Request("http://local/x", { method: "POST" }), ""],
    ["a GET", () => new Request("http://local/x"), ""],
    [
      "an unreadable Content-Length",
      () => new Request("http://local/x", { method: "POST", body: "abc", headers: { "content-length": "lots" } }),
      "abc",
    ],
    ["an empty streamed body", () => streamed(new Uint8Array(1), 0).req, ""],
  ])("reads %s", async (_name, make, text) => {
    expect(await readBodyLimited(make(), MAX)).toBe(text);
  });

  it("joins streamed chunks before decoding UTF-8", async () => {
    const bytes = new TextEncoder().encode("€uro");
    const parts = [bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)];
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        const p = parts[i++];
        if (p) c.enqueue(p);
        else c.close();
      },
    });
    const req = new Request("http://local/x", { method: "POST", body, duplex: "half" } as RequestInit);
    expect(await readBodyLimited(req, MAX)).toBe("€uro");
  });

  it.each<[string, () => Request]>([
    [
      "a declared Content-Length over max",
      () =>
        new Request("http://local/x", {
          method: "POST",
          body: "x".repeat(MAX + 1),
          headers: { "content-length": String(MAX + 1) },
        }),
    ],
    [
      "a declared Content-Length over max with a small body",
      () => new Request("http://local/x", { method: "POST", body: "x", headers: { "content-length": "999999999" } }),
    ],
    [
      "a body one byte over max without Content-Length",
      () => new Request("http://local/x", { method: "POST", body: "x".repeat(MAX + 1) }),
    ],
    [
      "a body larger than its declared Content-Length",
      () =>
        new Request("http://local/x", {
          method: "POST",
          body: "x".repeat(MAX * 2),
          headers: { "content-length": "10" },
        }),
    ],
  ])("refuses %s with PAYLOAD_TOO_LARGE", async (_name, make) => {
    const err = await rejection(readBodyLimited(make(), MAX));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("PAYLOAD_TOO_LARGE");
    expect((err as AppError).status).toBe(413);
  });

  // Changed on purpose: an oversized body is drained (up to a bound) so a sender that writes it all first gets the 413.
  it("reads and discards an oversized body up to the drain bound before refusing, buffering none of it", async () => {
    const { req, pulled } = streamed(new Uint8Array(256), 16, { "content-length": String(256 * 16) });
    const err = await rejection(readBodyLimited(req, MAX, 8 * MAX));
    expect((err as AppError).code).toBe("PAYLOAD_TOO_LARGE");
    expect(pulled.bytes).toBe(256 * 16);
    expect(pulled.cancelled).toBe(false);
  });

  it("stops reading a streamed body soon after it passes the drain bound, and cancels the stream", async () => {
    const { req, pulled } = streamed(new Uint8Array(256), 1_000_000);
    const err = await rejection(readBodyLimited(req, MAX, 8 * MAX));
    expect((err as AppError).code).toBe("PAYLOAD_TOO_LARGE");
    expect(pulled.bytes).toBeGreaterThan(8 * MAX);
    expect(pulled.bytes).toBeLessThan(8 * MAX + 256 * 4);
    expect(pulled.cancelled).toBe(true);
  });

  it("does not read the body at all when the declared length is over the drain bound, and cancels it", async () => {
    const { req, pulled } = streamed(new Uint8Array(256), 100, { "content-length": String(256 * 100) });
    await rejection(readBodyLimited(req, MAX, 8 * MAX));
    expect(pulled.bytes).toBe(0);
    expect(pulled.cancelled).toBe(true);
  });

  it("drains up to 64 MiB by default", async () => {
    const { req, pulled } = streamed(new Uint8Array(1024 * 1024), 65);
    await rejection(readBodyLimited(req, 8 * 1024 * 1024));
    expect(pulled.bytes).toBe(65 * 1024 * 1024);
    expect(pulled.cancelled).toBe(true);
  });

  it("names the limit in MiB", async () => {
    const err = await rejection(
      readBodyLimited(
        new Request("http://local/x", { method: "POST", body: "x", headers: { "content-length": "99999999" } }),
        8 * 1024 * 1024,
      ),
    );
    expect((err as AppError).message).toBe("request body exceeds 8 MiB");
  });
});

describe("errorResponse", () => {
  it.each<[unknown, number, string]>([
    [new AppError("BAD_REQUEST", "nope"), 400, "nope"],
    [new AppError("UNSUPPORTED_MEDIA_TYPE", "type"), 415, "type"],
    [new AppError("PAYLOAD_TOO_LARGE", "big"), 413, "big"],
    [new AppError("INTERNAL", "db path /secret leaked"), 500, "internal error"],
    [new Error("SQLITE_CORRUPT at /var/lib/x"), 500, "internal error"],
    [new RangeError("Maximum call stack size exceeded"), 500, "internal error"],
    [new SyntaxError("Unexpected token ] in JSON at position 7"), 500, "internal error"],
  ])("%s → %i %s", async (err, status, message) => {
    const orig = console.error;
    console.error = () => {};
    try {
      const res = errorResponse(err);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error: message });
    } finally {
      console.error = orig;
    }
  });
});
