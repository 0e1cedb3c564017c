import { Suspense } from "react";
import { RoutingView } from "@/components/views/routing-view";

export default function RoutingPage() {
  return (
    <Suspense>
      <RoutingView />
    </Suspense>
  );
}
