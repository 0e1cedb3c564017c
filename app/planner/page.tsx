import type { Metadata } from "next";
import { Suspense } from "react";
import { PlannerView } from "@/components/views/planner-view";

export const metadata: Metadata = { title: "Planner" };

export default function PlannerPage() {
  return (
    <Suspense>
      <PlannerView />
    </Suspense>
  );
}
