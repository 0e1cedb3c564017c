import { Suspense } from "react";
import { PlannerView } from "@/components/views/planner-view";

export default function PlannerPage() {
  return (
    <Suspense>
      <PlannerView />
    </Suspense>
  );
}
