/** Polls `probe` until it returns a value that is not undefined, or fails after `timeoutMs` with the last seen state. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  opts: { timeoutMs?: number; intervalMs?: number; describe?: () => Promise<string> } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) {
      const state = opts.describe ? await opts.describe().catch((e: unknown) => String(e)) : "";
      throw new Error(`timed out waiting for ${what}${state ? `; last state: ${state}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
