import type { Runtime } from "@levelrail/docker";
import { instanceFilter } from "@levelrail/spec/naming";

/** Runs `fn` over `items`, at most `limit` at once. */
export async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** The part of a worker test suite a fleet benchmark tears down. */
interface Suite {
  runtime: Runtime;
  shortName: string;
  stopWorker(): Promise<void>;
  teardown(): Promise<void>;
}

/**
 * The teardown of a benchmark that makes a fleet: the worker stopped, every container of the
 * installation removed 8 at a time (before the suite's own, sequential, teardown), then the suite's.
 * Runs once however often it is called, and also on SIGINT / SIGTERM (then exits 130).
 */
export function fleetTeardown(s: Suite): () => Promise<void> {
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await s.stopWorker();
      await pool(await s.runtime.listContainers(instanceFilter(s.shortName)), 8, (c) => s.runtime.removeContainer(c.id));
      await s.teardown();
    })());
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      console.error(`${sig}: removing the fleet`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  return cleanup;
}
