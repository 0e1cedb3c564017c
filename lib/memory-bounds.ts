// Every in-memory structure of Switchyard's processes that grows with traffic, with its bound and its eviction rule,
// in one place (docs/operations.md, "Memory", adds them up against the budget of server/memory-budget.ts). A module
// that keeps such a structure imports its bound from here; a new one gets a line here first.

const MiB = 1024 * 1024;

/** SQLite's page cache per connection (MiB; SQLite evicts least recently used pages past it). */
export const SQLITE_CACHE_MB = {
  /** The dashboard's main-thread connection: pages and API reads. */
  main: 8,
  /** Each ingest thread: a batch's index pages. */
  ingest: 16,
  /** The attribution thread. */
  attribution: 8,
  /** Each preview thread (freed with the thread after IDLE_EXIT_MS). */
  preview: 32,
  /** Tools and tests that open a file themselves. */
  other: 64,
} as const;

// ---- Ingest (each ingest thread; the location map is shared by all of them) ----

/** Slots of the shared KV location map (24 bytes each: 24 MiB, resident from the start). Wiped when 60% full. */
export const KV_LOCATION_SLOTS = 1 << 20;
/** Literal hash bytes of recent KV rows kept per connection (a ring twice this size). Oldest dropped first. */
export const KV_RECENT_BYTES = 8 * MiB;
/** KV origin lists read back and kept per connection (entries of at most 128 KiB). Oldest dropped first. */
export const KV_READ_CACHE_ENTRIES = 20_000;
/** Origin infos kept while one batch is encoded; cleared when full and after the batch. */
export const KV_INFO_CACHE_ENTRIES = 200_000;
/** Distinct first-turn hashes remembered per connection (and the slots of their table); both wiped when reached. */
export const ORIGIN_HASHES = 200_000;
export const ORIGIN_SLOTS = 1 << 19;
/** Bytes of full chains memoized per connection (ingest, trace reads). Oldest dropped first. */
export const CHAIN_MEMO_BYTES = 8 * MiB;
/** First turns kept while one trace is read. */
export const FIRSTS_KEPT = 200_000;
/**
 * Bodies the dashboard holds in flight (being stored or waiting for an ingest thread, up to 8 MiB each). One more is
 * answered 503 with Retry-After: the sender keeps it and sends it again.
 */
export const INGEST_MAX_IN_FLIGHT = 32;
/** PostgreSQL's ingest: recent requests (with their chains) remembered per client for compact chains. FIFO. */
export const PG_RECENT_REQUESTS = 2_000;

// ---- Attribution (one thread, on the leader) ----

/**
 * Blocks cached in the attribution index's table (SQLite); past it the older half is dropped and the table shrinks.
 * At most ~84 MiB (2^21 slots of 40 bytes). 100,000 held the dashboard near 330 MB for half an hour of steady traffic,
 * then attribution fell behind (each block not held is a lookup): 10 minutes behind 45 minutes in, and growing.
 */
export const ATTR_BLOCK_CACHE = 1_000_000;
/** Decoded residency lists cached; all dropped past it. */
export const ATTR_LIST_CACHE = 200_000;
/** First-seen marks cached; past it the newest half is kept. */
export const ATTR_SEEN_CACHE = 500_000;
/**
 * Bits of each of the attribution index's two Bloom filters (up to 32 MiB each, sized for the blocks on disk). Past
 * ~27M blocks false positives rise: each one costs a lookup, never a wrong answer.
 */
export const ATTR_FILTER_BITS = 1 << 28;
/** PostgreSQL's attribution: blocks and local marks cached; all dropped past it. */
export const PG_ATTR_CACHE = 1_000_000;

// ---- Previews ----

/** Baseline replays kept per preview thread for the next preview of the same window. Least recently used dropped. */
export const PREVIEW_KEPT_BASELINES = 4;
/** Finished preview jobs (with their results) kept for polling; older ones dropped, at most this many. */
export const PREVIEW_KEPT_JOBS = 64;
/** How long a finished job is kept for its requester to read. */
export const PREVIEW_KEEP_FINISHED_MS = 10 * 60_000;
/** An idle preview thread exits after this long and gives its memory back. */
export const PREVIEW_IDLE_EXIT_MS = 60_000;

// ---- Observability and sources ----

/** Distinct sender names counted by name in /metrics; later ones are counted as "other". */
export const METRICS_MAX_SOURCES = 200;
/** Events a ZMQ subscriber holds before it stops reading (flushed every 250 ms). */
export const ZMQ_MAX_PENDING = 50_000;
/** Worker ids a Prometheus source keeps synthesized counters for; the least recently scraped dropped past it. */
export const SCRAPE_MAX_WORKERS = 1_024;

// ---- The simulator process ----

/** Events and bytes the simulator holds for the dashboard while it cannot deliver; the oldest dropped past either. */
export const SIM_BUFFER_EVENTS = 100_000;
export const SIM_BUFFER_BYTES = 64 * MiB;
