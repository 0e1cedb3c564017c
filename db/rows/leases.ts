// A lease as stored (db/sqlite/leases.ts) and as the leader's decisions take it (server/jobs/leader-lease.ts).

/** holder: a process id (host:pid:random); since: when that holder took the lease; expiresAt: when another may (Unix ms). */
export type LeaseRow = { holder: string; since: number; expiresAt: number };
