import type { Metadata } from "next";
import { Suspense } from "react";
import { SessionTraceView } from "@/components/views/session-trace-view";

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The tab title names the session, so tabs and history tell one from another. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `Session ${decodeId((await params).id)}` };
}

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <SessionTraceView id={decodeId(id)} />
    </Suspense>
  );
}
