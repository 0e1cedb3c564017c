import type { Metadata } from "next";
import { Suspense } from "react";
import { OverviewView } from "@/components/views/overview-view";

// The root layout's title template reaches child segments only, so the overview spells its title out.
export const metadata: Metadata = { title: { absolute: "Overview · Switchyard" } };

export default function OverviewPage() {
  return (
    <Suspense>
      <OverviewView />
    </Suspense>
  );
}
