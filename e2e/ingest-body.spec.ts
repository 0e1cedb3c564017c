import http from "node:http";
import { expect, test } from "@playwright/test";
import { INGEST_TOKEN } from "./fixtures/telemetry";

// Senders that write their whole body before reading the reply (Python's urllib, shell scripts, many agents' exporters)
// must learn why an oversized batch was refused, and a huge one must not hurt the server.

const port = Number(process.env.SWITCHYARD_E2E_PORT);
const MiB = 1024 * 1024;

type Outcome = { status: number; body: string } | { error: string };

/**
 * POST size bytes, waiting for the whole body to be written before looking at the reply: with a Content-Length in one
 * write, or chunked (no length) in 1 MiB writes, as streaming senders do.
 */
function postWholeBody(size: number, framing: "length" | "chunked"): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/x-ndjson" };
    if (framing === "length") headers["content-length"] = String(size);
    const req = http.request({ host: "localhost", port, method: "POST", path: "/api/ingest", headers });
    let response: http.IncomingMessage | null = null;
    req.on("response", (res) => (response = res));
    req.on("error", (err) => resolve({ error: err.message }));
    if (framing === "chunked") for (let sent = 0; sent < size - MiB; sent += MiB) req.write(Buffer.alloc(MiB, 0x20));
    req.end(Buffer.alloc(framing === "chunked" ? size - MiB * Math.ceil(size / MiB - 1) : size, 0x20), () => {
      // Written in full; only now read what the server answered (or wait for it).
      const read = (res: http.IncomingMessage) => {
        let body = "";
        res.on("data", (d) => (body += String(d)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", (err) => resolve({ error: err.message }));
      };
      if (response) read(response);
      else req.once("response", read);
    });
  });
}

for (const framing of ["length", "chunked"] as const) {
  test(`a 9 MiB body (${framing}) written in full before reading gets 413 with the reason`, async ({ request }) => {
    const outcome = await postWholeBody(9 * MiB, framing);
    expect(outcome).toEqual({ status: 413, body: expect.stringContaining("request body exceeds 8 MiB") });
    expect((await request.get("/api/health")).status()).toBe(200);
  });

  test(`a body over 64 MiB (${framing}) is cut off, and the server keeps answering`, async ({ request }) => {
    const outcome = await postWholeBody(65 * MiB, framing);
    if ("status" in outcome) expect(outcome.status).toBe(413);
    else expect(outcome.error).toMatch(/EPIPE|ECONNRESET|socket hang up/);
    expect((await request.get("/api/health")).status()).toBe(200);
    const ok = await request.post("/api/ingest", { headers: { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/x-ndjson" }, data: "" });
    expect(ok.status()).toBe(200);
  });
}
