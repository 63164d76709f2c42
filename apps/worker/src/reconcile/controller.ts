/** What one reconcile pass asks of the runner afterwards. */
export interface ReconcileResult {
  /** Run this key again after this long (a poll, not an error). */
  requeueAfterMs?: number;
}

/**
 * A controller converges one kind of resource. It gets only a key, re-reads
 * the desired state every pass and keeps no memory between passes.
 */
export interface Controller {
  readonly name: string;
  reconcile(key: string): Promise<ReconcileResult | void>;
}
