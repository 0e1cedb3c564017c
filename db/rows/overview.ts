// Rows the overview queries return (db/sqlite/overview.ts).

export type WorkerSample = { workerId: string; role: string | null; kvActiveBlocks: number; kvTotalBlocks: number };
