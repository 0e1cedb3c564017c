import http from "node:http";
import { expect, test } from "@playwright/test";
import { INGEST_TOKEN } from "./fixtures/telemetry";

// Senders that write their whole body before reading the reply (Python's urllib, shell scripts, many agents' exporters)
// must learn why an oversized batch was refused, and a huge one must not hurt the server.

const port = Number(process.env.SWITCHYARD_E2E_PORT);
const MiB = 1024 * 1024;

type Outcome = { status: number; body: string } | { error: string };

/** POST size bytes in one write, waiting for the write to finish before looking at the reply. */
function postWholeBody(size: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request({
      host: "localhost",
      port,
      method: "POST",
      path: "/api/ingest",
      headers: { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/x-ndjson", "content-length": String(size) },
    });
    let response: http.IncomingMessage | null = null;
    req.on("response", (res) => (response = res));
    req.on("error", (err) => resolve({ error: err.message }));
    req.end(Buffer.alloc(size, 0x20), () => {
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

test("a 9 MiB body written in full before reading gets 413 with the reason", async ({ request }) => {
  const outcome = await postWholeBody(9 * MiB);
  expect(outcome).toEqual({ status: 413, body: expect.stringContaining("request body exceeds 8 MiB") });
  expect((await request.get("/api/health")).status()).toBe(200);
});

test("a body over 64 MiB is cut off, and the server keeps answering", async ({ request }) => {
  const outcome = await postWholeBody(65 * MiB);
  if ("status" in outcome) expect(outcome.status).toBe(413);
  else expect(outcome.error).toMatch(/EPIPE|ECONNRESET|socket hang up/);
  expect((await request.get("/api/health")).status()).toBe(200);
  const ok = await request.post("/api/ingest", { headers: { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/x-ndjson" }, data: "" });
  expect(ok.status()).toBe(200);
});
