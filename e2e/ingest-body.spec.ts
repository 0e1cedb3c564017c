import net from "node:net";
import { expect, test } from "@playwright/test";
import { INGEST_TOKEN } from "./fixtures/telemetry";

// Senders that write their whole body before reading the reply (Python's urllib, shell scripts, many agents' exporters)
// must learn why an oversized batch was refused, and a huge one must not hurt the server.

const port = Number(process.env.SWITCHYARD_E2E_PORT);
const MiB = 1024 * 1024;

type Outcome = { status: number; body: string } | { error: string };

/**
 * POST size bytes over a raw socket the way Python's urllib does (Connection: close; headers, then the whole body with a
 * Content-Length, or chunked in 1 MiB chunks), and only once every byte is written, read the reply.
 */
function postWholeBody(size: number, framing: "length" | "chunked"): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "localhost");
    socket.pause();
    socket.on("error", (err) => resolve({ error: err.message }));
    const length = framing === "length" ? `Content-Length: ${size}` : "Transfer-Encoding: chunked";
    socket.write(
      `POST /api/ingest HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: Bearer ${INGEST_TOKEN}\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n${length}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(MiB, 0x20);
    for (let sent = 0; sent < size; sent += MiB)
      socket.write(
        framing === "length"
          ? chunk
          : Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]),
      );
    socket.end(framing === "chunked" ? "0\r\n\r\n" : "", () => {
      // Written in full; only now read what the server answered.
      let raw = "";
      socket.on("data", (d) => (raw += String(d)));
      socket.on("end", () => {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
        const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
        resolve(status ? { status, body } : { error: `no reply: ${JSON.stringify(raw.slice(0, 80))}` });
      });
      socket.resume();
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
    else expect(outcome.error).toMatch(/EPIPE|ECONNRESET|no reply/);
    expect((await request.get("/api/health")).status()).toBe(200);
    const ok = await request.post("/api/ingest", {
      headers: { authorization: `Bearer ${INGEST_TOKEN}`, "content-type": "application/x-ndjson" },
      data: "",
    });
    expect(ok.status()).toBe(200);
  });
}
