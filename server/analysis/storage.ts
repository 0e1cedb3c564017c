// What the Sources page says about the database: its size and, per kind of data, the oldest row kept and for how long
// that kind is kept. Pure.

export type Tier = "raw" | "detail" | "summary";
export type KindOldest = { table: string; label: string; tier: Tier; oldest: number | null };
export type StorageSummary = {
  fileBytes: number;
  walBytes: number;
  totalBytes: number;
  kinds: { table: string; label: string; oldest: number | null; keptFor: string }[];
};

/** How long a tier is kept, as text: "24 h", "30 days", "400 days". */
export function keptFor(tier: Tier, s: { rawHours: number; days: number; summaryDays: number }): string {
  if (tier === "raw") return `${s.rawHours} h`;
  return `${tier === "detail" ? s.days : s.summaryDays} days`;
}

/** The size card's data: file + WAL bytes, and each kind with its oldest row (null: none kept) and retention. */
export function storageSummary(
  size: { fileBytes: number; walBytes: number },
  kinds: readonly KindOldest[],
  s: { rawHours: number; days: number; summaryDays: number },
): StorageSummary {
  return {
    fileBytes: size.fileBytes,
    walBytes: size.walBytes,
    totalBytes: size.fileBytes + size.walBytes,
    kinds: kinds.map((k) => ({ table: k.table, label: k.label, oldest: k.oldest, keptFor: keptFor(k.tier, s) })),
  };
}
