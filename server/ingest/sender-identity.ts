// The Sources page's identity of an ingest sender (its X-Switchyard-Source name), on either engine. Pure.

/** The source_status id, kind and name under which a sender's batches are shown. */
export function senderIdentity(source: string): { id: string; kind: "ingest"; name: string } {
  const name = source === "unknown" ? "Ingest API (sender without X-Switchyard-Source)" : `${source} (ingest API)`;
  return { id: `ingest:${source}`, kind: "ingest", name };
}
