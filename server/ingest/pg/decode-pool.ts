import type { ResourceLimits } from "node:worker_threads";
import { decodeForStore, setPgBodyDecoder, type DecodedBody } from "./decode";
import { startThread } from "../../threads";
import { ThreadPool, type PoolReply } from "../../thread-pool";

// PostgreSQL's ingest decodes bodies on worker threads: JSON parsing and validation cost about as much main-thread
// CPU as storing (bench:ingest's route line), and PostgreSQL's store itself is async I/O that needs no thread. A
// refusal travels as its AppError code and message and is rebuilt here with the same code.

type Reply = PoolReply & { body?: DecodedBody };

/**
 * A fixed pool of decode threads (server/thread-pool.ts): a body goes to the thread with the fewest in flight; the
 * bodies a stopped thread held are answered 503 with Retry-After (nothing of them was stored).
 */
export class PgDecodePool {
  private readonly pool: ThreadPool<DecodedBody, Reply>;

  constructor(size: number, limits?: ResourceLimits) {
    this.pool = new ThreadPool<DecodedBody, Reply>({
      kind: "decode",
      size,
      start: (label) => startThread("decode", label, {}, { limits }),
      result: (m) => m.body,
      failed: "decoding failed",
    });
  }

  /** Make this pool the process's body decoder for PostgreSQL's ingest. */
  install(): void {
    setPgBodyDecoder((text, contentType) => this.decode(text, contentType));
  }

  /** Decode one body on the least busy thread (inline when the pool has none). */
  decode(text: string, contentType: string): Promise<DecodedBody> {
    if (this.pool.size === 0) return Promise.resolve().then(() => decodeForStore(text, contentType));
    return this.pool.send((id) => ({ value: { id, text, contentType } }));
  }

  async close(): Promise<void> {
    setPgBodyDecoder(undefined);
    await this.pool.close();
  }
}
