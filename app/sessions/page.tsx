import { Suspense } from "react";
import { SessionsView } from "@/components/views/sessions-view";

export default function SessionsPage() {
  return (
    <Suspense>
      <SessionsView />
    </Suspense>
  );
}
