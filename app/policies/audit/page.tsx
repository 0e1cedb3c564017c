import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditView } from "@/components/policies/audit-view";

export const metadata: Metadata = { title: "Policy audit" };

export default function PolicyAuditPage() {
  return (
    <Suspense>
      <AuditView />
    </Suspense>
  );
}
