/**
 * The builds running in this process and how to stop each. A build's key is locked while it runs, so
 * a cancel cannot wait for its next pass: the key's wake-up (the cancel verb notifies it) pokes this
 * registry, which asks the store and stops the build. A slow timer asks too, should a notification
 * be lost.
 */
export class RunningBuilds {
  private readonly stops = new Map<string, (why: "cancelled" | "stopping") => void>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cancelRequested: (id: string) => Promise<boolean>,
    private readonly log: (line: string) => void,
    checkEveryMs = 5_000,
  ) {
    this.timer = setInterval(() => {
      for (const id of this.stops.keys()) this.poke(id);
    }, checkEveryMs);
    this.timer.unref();
  }

  register(id: string, stop: (why: "cancelled" | "stopping") => void): () => void {
    this.stops.set(id, stop);
    return () => {
      if (this.stops.get(id) === stop) this.stops.delete(id);
    };
  }

  has(id: string): boolean {
    return this.stops.has(id);
  }

  /** The build's key woke: stop it if it runs here and a cancel was asked. */
  poke(id: string): void {
    const stop = this.stops.get(id);
    if (!stop) return;
    this.cancelRequested(id).then(
      (yes) => {
        if (yes) stop("cancelled");
      },
      (err: unknown) => this.log(`[build] ${id}: could not check for a cancel: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  /** Stops every running build (the worker is stopping; their rows say interrupted on the next leader). */
  stopAll(): void {
    clearInterval(this.timer);
    for (const stop of this.stops.values()) stop("stopping");
  }
}
