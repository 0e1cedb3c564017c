import type { Metadata } from "next";
import { Suspense } from "react";
import { RoutingView } from "@/components/views/routing-view";

export const metadata: Metadata = { title: "Routing" };

export default function RoutingPage() {
  return (
    <Suspense>
      <RoutingView />
    </Suspense>
  );
}
