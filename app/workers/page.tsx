import type { Metadata } from "next";
import { Suspense } from "react";
import { WorkersView } from "@/components/views/workers-view";

export const metadata: Metadata = { title: "Workers" };

export default function WorkersPage() {
  return (
    <Suspense>
      <WorkersView />
    </Suspense>
  );
}
