import type { Metadata } from "next";
import { Suspense } from "react";
import { WorkerDetailView } from "@/components/views/worker-detail-view";

/** Route params arrive percent-encoded; an undecodable one is shown as it came. */
function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The tab title names the worker, so tabs and history tell one from another. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `Worker ${decodeId((await params).id)}` };
}

export default async function WorkerPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <WorkerDetailView id={decodeId(id)} />
    </Suspense>
  );
}
