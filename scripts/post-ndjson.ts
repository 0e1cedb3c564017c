// A light HTTP sender for the ingest benchmarks: node:http with keep-alive and a Buffer body, so the load generator
// (which shares the machine with the dashboard it measures) spends little CPU per request.
import http from "node:http";

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** POST an NDJSON body; resolves to the status and the reply text. */
export function postNdjson(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/x-ndjson", "content-length": String(bytes.byteLength), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(bytes);
  });
}
