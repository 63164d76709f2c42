"use client";
import Link from "next/link";
import { useHookRun } from "@/lib/queries";
import { HookRunView } from "./hook-run-view";

/** A hook run on its own page: links back to its service, then the run and its live output. */
export function HookRunDetail({ id }: { id: string }) {
  const run = useHookRun(id);
  const service = run.data?.service;
  return (
    <>
      <p className="crumbs">
        <Link href="/">Apps</Link>
        {service && (
          <>
            {" "}
            / <Link href={`/services/${encodeURIComponent(service)}`}>{service}</Link>
          </>
        )}{" "}
        / hook run
      </p>
      <h1>Hook run</h1>
      <section className="card" aria-labelledby="hook-run-title">
        <HookRunView id={id} titleId="hook-run-title" />
      </section>
    </>
  );
}
