import { Suspense } from "react";
import { WorkersView } from "@/components/views/workers-view";

export default function WorkersPage() {
  return (
    <Suspense>
      <WorkersView />
    </Suspense>
  );
}
