"use client";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/trpc/root";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** A session that expired (or was ended elsewhere) sends the browser to sign in, then back here. */
function toSignInWhenSignedOut(err: unknown) {
  if ((err as { data?: { code?: string } } | null)?.data?.code !== "UNAUTHORIZED") return;
  const here = window.location.pathname + window.location.search;
  window.location.assign(here === "/" ? "/login" : `/login?next=${encodeURIComponent(here)}`);
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { staleTime: 1_000, retry: 1, refetchOnWindowFocus: false } },
        queryCache: new QueryCache({ onError: toSignInWhenSignedOut }),
        mutationCache: new MutationCache({ onError: toSignInWhenSignedOut }),
      }),
  );
  // Streamed batches: each query of a batch is answered as soon as it is ready, so a page's fast queries (a table)
  // never wait for its slowest one (a chart's series).
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchStreamLink({ url: "/api/trpc", transformer: superjson })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
