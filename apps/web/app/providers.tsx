"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";

export function Providers({ children }: { children: ReactNode }) {
  // One client per browser tab; server-prefetched data counts as fresh for a moment.
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 1000, retry: 1 } } }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
