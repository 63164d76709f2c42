import type { GitAccess, GitClient } from "./git";
import { GitError } from "./git";
import type { BuildStore } from "./ports";

/** A source that polls its ref, as the poller reads it. */
export interface PolledSource {
  id: string;
  orgId: string;
  serviceId: string;
  ref: string;
  every: number | null;
  lastPolledAt: Date | null;
}

export interface PollDeps {
  sources: { pollingSources(): Promise<PolledSource[]> };
  store: Pick<BuildStore, "sourceOf" | "credential" | "sourceSeen">;
  git: GitClient;
  /** Queues a build of `commit` (trigger `poll`) unless that commit was built or queued already; answers whether it queued one. */
  enqueue(source: PolledSource, commit: string): Promise<boolean>;
  knownHostsFile(sourceId: string): string;
  now: () => number;
  log: (line: string) => void;
  /** How often due sources are looked for (ms). */
  tickMs?: number;
}

/** Pure: the sources due a poll now. */
export function duePolls(sources: PolledSource[], now: number): PolledSource[] {
  return sources.filter((s) => s.every !== null && s.every > 0 && (s.lastPolledAt === null || now - s.lastPolledAt.getTime() >= s.every * 1000));
}

/**
 * Polls the ref of every source with `pollIntervalSeconds` (hosts that cannot send webhooks): a
 * `git ls-remote` each interval; a new commit queues a build. Records last_polled_at, the commit
 * seen, and why the repository could not be reached (last_error).
 */
export class SourcePoller {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: PollDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      this.round = this.round.then(() => this.pollDue());
    }, this.o.tickMs ?? 5_000);
    this.timer.unref();
  }

  /** One round: every due source, one after the other. */
  async pollDue(): Promise<void> {
    if (this.stopped) return;
    let sources: PolledSource[];
    try {
      sources = duePolls(await this.o.sources.pollingSources(), this.o.now());
    } catch (err) {
      return this.o.log(`[poll] cannot list sources: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const s of sources) {
      if (this.stopped) return;
      await this.pollOne(s).catch((err: unknown) => this.o.log(`[poll] source ${s.id}: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  private async pollOne(s: PolledSource): Promise<void> {
    const source = await this.o.store.sourceOf(s.serviceId);
    if (!source) return;
    const credential = source.credentialId ? await this.o.store.credential(source.orgId, source.credentialId) : null;
    if (source.credentialId && !credential) return this.o.store.sourceSeen(s.id, { error: "the source's git credential was deleted", polled: true });
    const access: GitAccess = { url: source.url, credential, knownHostsFile: this.o.knownHostsFile(s.id) };
    let commit: string;
    try {
      commit = await this.o.git.resolve(access, source.ref);
    } catch (err) {
      if (!(err instanceof GitError)) throw err;
      return this.o.store.sourceSeen(s.id, { error: err.message, polled: true });
    }
    await this.o.store.sourceSeen(s.id, { commit, error: "", polled: true });
    if (await this.o.enqueue(s, commit)) this.o.log(`[poll] ${source.serviceName}: ${source.ref} is at ${commit.slice(0, 12)}: building`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.round;
  }
}
