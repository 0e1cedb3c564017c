import type { Metadata } from "next";
import { Suspense } from "react";
import { CapacityView } from "@/components/views/capacity-view";

export const metadata: Metadata = { title: "Capacity" };

export default function CapacityPage() {
  return (
    <Suspense>
      <CapacityView />
    </Suspense>
  );
}
