import type { Metadata } from "next";
import { Suspense } from "react";
import { PoliciesView } from "@/components/policies/policies-view";

export const metadata: Metadata = { title: "Policies" };

export default function PoliciesPage() {
  return (
    <Suspense>
      <PoliciesView />
    </Suspense>
  );
}
