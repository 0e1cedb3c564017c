// Every in-memory structure of Switchyard's processes that grows with traffic, with its bound and its eviction rule,
// in one place (docs/operations.md, "Memory", adds them up against the budget of server/memory-budget.ts). A module
// that keeps such a structure imports its bound from here; a new one gets a line here first.

const MiB = 1024 * 1024;

/** SQLite's page cache per connection (MiB; SQLite evicts least recently used pages past it). */
export const SQLITE_CACHE_MB = {
  /** The dashboard's main-thread connection: pages and API reads. */
  main: 8,
  /**
   * Each ingest thread: a batch's index pages. It was 16: the cache fills as the database grows, so what it is allowed
   * is growth over the first hours.
   */
  ingest: 4,
  /** The attribution thread (4 for the same reason). */
  attribution: 4,
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
/**
 * Recent KV rows kept per connection, whatever their bytes (each costs ~100 bytes of heap: a Map entry and its
 * position). Bounded by bytes alone, small rows filled 8 MiB only after an hour of the steady scenario: 70,000 rows,
 * ~7 MB of heap still growing an hour in.
 */
export const KV_RECENT_ROWS = 16_384;
/**
 * KV origin lists read back and kept per connection: at most this many, and at most KV_READ_CACHE_BYTES of them (an
 * entry is at most 128 KiB). Oldest dropped first. Counted alone, 20,000 lists grew an ingest thread's buffers by
 * ~25 MB over an hour. Most lists are small, so the count binds first: each entry also costs ~200 bytes of heap, and
 * at 20,000 the heap still grew 40 minutes in; at 8,192 an hour of the steady scenario's ingest levels off after ~30
 * minutes, with the same database size.
 */
export const KV_READ_CACHE_ENTRIES = 8_192;
export const KV_READ_CACHE_BYTES = 4 * MiB;
/**
 * Bytes the KV list reader (server/ingest/lift-hashes.ts, per ingest thread) keeps between lines, for each of
 * its two buffers: a line's bytes and a list's hashes. A longer line or list gets buffers of its own, dropped after it.
 */
export const LIFT_BUFFER_BYTES = 1 * MiB;
/** Origin infos kept while one batch is encoded; cleared when full and after the batch. */
export const KV_INFO_CACHE_ENTRIES = 200_000;
/** Distinct first-turn hashes remembered per connection (and the slots of their table); both wiped when reached. */
export const ORIGIN_HASHES = 200_000;
export const ORIGIN_SLOTS = 1 << 19;
/** Bytes of full chains memoized per connection (ingest, trace reads). Oldest dropped first. */
export const CHAIN_MEMO_BYTES = 2 * MiB;
/**
 * Bytes of local chains one window read (the policy preview's and the capacity planner's, db/sqlite/previews.ts)
 * remembers to build later turns' chains from. Each is a chain one of the rows it returns holds as well, so the bound
 * adds no memory beyond the window's own rows. At 2 MiB an hour of steady traffic read 25,647 bases back from SQLite
 * (a trajectory's previous turn was often older than the newest 2 MiB), at 16 MiB 76.
 */
export const PASS_CHAIN_MEMO_BYTES = 16 * MiB;
/**
 * Bytes of whole chains PostgreSQL's attribution job keeps (db/pg/chains.ts): each trajectory's newest turn, which its
 * next turn names as its chain base. A turn whose base is not held reads it and its own bases back to a whole row.
 */
export const PG_ATTRIBUTION_CHAIN_MEMO_BYTES = 4 * MiB;
/** First turns kept while one trace is read. */
export const FIRSTS_KEPT = 200_000;
/**
 * Bodies the dashboard holds in flight (being stored or waiting for an ingest thread, up to 8 MiB each). One more is
 * answered 503 with Retry-After: the sender keeps it and sends it again.
 */
export const INGEST_MAX_IN_FLIGHT = 32;
/**
 * Clusters a store keeps (rows of the clusters table); an event of one more new cluster is refused alone. Each ingest
 * connection remembers the names it registered (as many).
 */
export const MAX_CLUSTERS = 1_024;
/**
 * PostgreSQL's ingest: recent requests (with their chains) remembered per client for compact chains. FIFO. A request
 * named by prefix_of that has gone from it is read from the table instead. Each holds its two chains (~15 kB in the
 * steady scenario), so 2,000 held ~30 MB; in the steady hour a turn names the request 65 requests back at the median,
 * 672 at the 99th percentile, and 305 of 14,083 named one more than 500 back.
 */
export const PG_RECENT_REQUESTS = 500;

// ---- Attribution (one thread, on the leader) ----

/**
 * Slots of the attribution index's block table (SQLite), 40 bytes each: 20 MiB, allocated and touched when the thread
 * starts, so it adds nothing while it fills. It holds at most half as many blocks (262,144); past that the least
 * recently used clean ones are dropped down to a quarter of the slots (each block not held costs one lookup when it is
 * used again). Blocks changed and not yet written are never dropped: while they alone need more room the table grows,
 * and it is cut back to these slots after the next flush. The steady scenario's cluster holds at most ~84k blocks at
 * once, so the live ones stay held. (The earlier bound, 1,000,000 blocks kept in order of first use, let the table
 * double to 2^21 slots within the hour; 100,000 dropped live blocks and attribution fell behind. 2^20 slots held the
 * budget's ten-minute level with 4 MB to spare.)
 */
export const ATTR_BLOCK_SLOTS = 1 << 19;
/**
 * Decoded residency lists cached (~500 bytes of heap each: ~9 intervals). Past it, after a flush, the oldest cached are
 * dropped down to three quarters of it. (Dropping all but the lists of cached blocks made the thread's heap swing
 * 24–72 MB as the cache filled and was cut.)
 */
export const ATTR_LIST_CACHE = 40_000;
/**
 * Intervals held by the cached lists together (about 15 bytes of heap each: lists share their interval objects, a
 * new list is a new array of them), so ~30 MB. Counting lists alone missed what blocks that move between tiers do:
 * each offload and onboarding maps every block of a conversation to a new, longer list, and the lists they left stay
 * cached until the next flush. The offload scenario with prefetch cached 293,000 lists of 10.4 M intervals within 7,700
 * KV events (188 MB of heap), past the thread's limit, and the restarted thread did the same again. Past this bound
 * the job flushes, and the cache drops the lists no held block points to, then the oldest, down to three quarters.
 */
export const ATTR_LIST_CACHE_INTERVALS = 2_000_000;
/**
 * Slots of the first-seen marks' read-through cache, 40 bytes each: 10 MiB, touched up front. At most half as many
 * marks; past that the least recently used are dropped down to a quarter of the slots. The marks not yet written have
 * tables of their own, of 2^16 slots, grown while a flush waits (at most SEEN_FLUSH_AT marks of the attribution job)
 * and cut back to 2^16 slots once written.
 */
export const ATTR_SEEN_SLOTS = 1 << 18;
/**
 * Bits of each of the attribution index's two Bloom filters at most (32 MiB each). Each starts sized for twice the
 * blocks on disk, at least 2^25 bits (4 MiB, touched up front), and is rebuilt larger once it holds 10 bits' worth of
 * keys (3.3M at 2^25: hours of steady traffic, an hour of the steady scenario adds about 0.9M). Past ~27M blocks
 * false positives rise: each one costs a lookup, never a wrong answer.
 */
export const ATTR_FILTER_BITS = 1 << 28;
/**
 * PostgreSQL's attribution: estimated heap bytes of the blocks (with their intervals) and local marks it keeps read
 * (server/jobs/attribution-pg-index.ts, which says how it estimates). Past it the job writes what changed and drops
 * the oldest read down to three quarters. The earlier bound, 1,000,000 blocks, counted entries, and a million blocks
 * alone are about 135 MB of the thread's 160: the steady scenario's hour sent at once (0.9 M blocks) ran the thread out
 * of memory 20 times before it caught up, and three simulated hours of blocks moved between tiers (77,000 blocks of
 * about 40 intervals each, some 300 MB by this estimate) three times.
 */
export const PG_ATTR_CACHE_BYTES = 48 * 1024 * 1024;

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
