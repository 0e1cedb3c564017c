import { Suspense } from "react";
import { AuditView } from "@/components/policies/audit-view";

export default function PolicyAuditPage() {
  return (
    <Suspense>
      <AuditView />
    </Suspense>
  );
}
