/** What one reconcile pass asks of the runner afterwards. */
export interface ReconcileResult {
  /** Run this key again after this long (a poll, not an error). */
  requeueAfterMs?: number;
}

/** What a pass may tell its runner while it runs. */
export interface Pass {
  /**
   * The pass only waits on the engine while `work` runs (a hook container running, an exec, a pull):
   * its slot goes to other keys meanwhile, the key stays locked, and a slot is taken back (ahead of
   * queued keys) before this resolves. The pass does nothing else until then.
   */
  waiting<T>(work: () => Promise<T>): Promise<T>;
}

/** A pass outside a runner (a test calling `reconcile` itself): waiting is just waiting. */
export const UNSLOTTED: Pass = { waiting: (work) => work() };

/**
 * A controller converges one kind of resource. It gets only a key, re-reads
 * the desired state every pass and keeps no memory between passes.
 */
export interface Controller {
  readonly name: string;
  reconcile(key: string, pass?: Pass): Promise<ReconcileResult | void>;
}
