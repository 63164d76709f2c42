import type { Runtime } from "@levelrail/docker";
import { networkName } from "@levelrail/spec/naming";

interface Seen {
  running: boolean;
  addresses: Record<string, string>;
  /** A name the engine did not know, or a container not running: asked again after `missTtlMs`. */
  missingUntil: number;
  stale: boolean;
}

/**
 * Container addresses, asked of the engine once and kept until an event says the container
 * changed (they change when it restarts, or when dockerd restarts). When the engine cannot be
 * asked, the last answer stands: the data plane keeps serving what it knew.
 */
export class AddressBook {
  private readonly seen = new Map<string, Seen>();
  /** Bumped by every event for a container asked about: an answer asked for before the event is already old when it comes. */
  private readonly epochs = new Map<string, number>();
  private readonly inflight = new Map<string, { epoch: number; answer: Promise<Seen | null> }>();

  constructor(
    private readonly runtime: Runtime,
    private readonly shortName: string,
    private readonly missTtlMs = 1000,
  ) {}

  /** The container's address on its app's network, or null when it is not running there. */
  async address(container: string, appId: string): Promise<string | null> {
    let s: Seen | null | undefined = this.seen.get(container);
    if (!s || s.stale || (s.missingUntil > 0 && s.missingUntil < Date.now())) s = (await this.inspect(container)) ?? s;
    if (!s || !s.running) return null;
    return s.addresses[networkName(this.shortName, appId)] ?? null;
  }

  /** Something happened to this container: ask again before the next answer. */
  invalidate(container: string): void {
    if (!this.seen.has(container) && !this.inflight.has(container)) return;
    this.epochs.set(container, (this.epochs.get(container) ?? 0) + 1);
    const s = this.seen.get(container);
    if (s) s.stale = true;
  }

  /** Everything may have changed (the engine restarted). */
  invalidateAll(): void {
    for (const name of new Set([...this.seen.keys(), ...this.inflight.keys()])) this.invalidate(name);
  }

  /** Forget containers no entry names any more. */
  retain(names: Set<string>): void {
    for (const name of this.seen.keys()) if (!names.has(name)) this.seen.delete(name);
    for (const name of this.epochs.keys()) if (!this.seen.has(name) && !this.inflight.has(name)) this.epochs.delete(name);
  }

  private inspect(container: string): Promise<Seen | null> {
    const epoch = this.epochs.get(container) ?? 0;
    const pending = this.inflight.get(container);
    if (pending && pending.epoch === epoch) return pending.answer;
    // Started on the next tick: registered below before it can end.
    const answer = Promise.resolve().then(async () => {
      try {
        const c = await this.runtime.inspectContainer(container);
        // Not there, or not running: asked again after `missTtlMs` even without an event (one
        // missed while the watch was connecting would otherwise keep it unanswered for good).
        const s: Seen = c
          ? { running: c.state === "running", addresses: c.addresses, missingUntil: c.state === "running" ? 0 : Date.now() + this.missTtlMs, stale: false }
          : { running: false, addresses: {}, missingUntil: Date.now() + this.missTtlMs, stale: false };
        // An event came while the engine answered: the answer may be from before it (and one asked
        // for since, with no event after, is newer).
        if ((this.epochs.get(container) ?? 0) !== epoch) {
          const newer = this.seen.get(container);
          if (newer && !newer.stale) return newer;
          s.stale = true;
        }
        this.seen.set(container, s);
        return s;
      } catch {
        return null; // the engine does not answer: keep what we had
      } finally {
        if (this.inflight.get(container)?.epoch === epoch) this.inflight.delete(container);
      }
    });
    this.inflight.set(container, { epoch, answer });
    return answer;
  }
}
