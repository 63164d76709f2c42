"use client";
import Link from "@/components/link";
import { serviceHref } from "@/lib/paths";
import { useHookRun } from "@/lib/hook-run-query";
import { HookRunView } from "./hook-run-view";

/** A hook run on its own page: links back to its service, then the run and its live output. */
export function HookRunDetail({ id }: { id: string }) {
  const run = useHookRun(id);
  const service = run.data ? { environmentId: run.data.environmentId, name: run.data.service } : null;
  return (
    <>
      <p className="crumbs">
        <Link href="/">Apps</Link>
        {service && (
          <>
            {" "}
            / <Link href={serviceHref(service)}>{service.name}</Link>
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
