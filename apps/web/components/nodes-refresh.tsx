"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Re-renders the (server-rendered) Nodes page on a timer, so a pending change is seen applied or
 * failed and a node going down is seen without a reload: often while a change is pending, seldom
 * otherwise. A refresh keeps the client controls' state (an open label editor keeps its edits).
 */
export function NodesRefresh({ pending }: { pending: boolean }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), pending ? 2_000 : 15_000);
    return () => clearInterval(timer);
  }, [router, pending]);
  return null;
}
