import { AppError } from "../../errors";

/** Read a request body as bytes, refusing (413) once it exceeds max bytes without buffering the rest. */
export async function readBytesLimited(req: Request, max: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length"));
  const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${Math.round(max / 1024 / 1024)} MiB`);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
