import { Suspense } from "react";
import { SessionTraceView } from "@/components/views/session-trace-view";

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <SessionTraceView id={decodeId(id)} />
    </Suspense>
  );
}
