import { Suspense } from "react";
import { OverviewView } from "@/components/views/overview-view";

export default function OverviewPage() {
  return (
    <Suspense>
      <OverviewView />
    </Suspense>
  );
}
