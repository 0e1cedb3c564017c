import { Suspense } from "react";
import { PoliciesView } from "@/components/policies/policies-view";

export default function PoliciesPage() {
  return (
    <Suspense>
      <PoliciesView />
    </Suspense>
  );
}
