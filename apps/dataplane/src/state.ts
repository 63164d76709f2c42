import { type FSWatcher, existsSync, readFileSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { type DataPlaneState, dataPlaneStateSchema, emptyDataPlaneState } from "@levelrail/spec/dataplane";

/** Reads the state file; null when it is missing, unreadable or not a valid state (the caller keeps its last good copy). */
export function readStateFile(file: string): { state: DataPlaneState } | { problem: string } {
  if (!existsSync(file)) return { problem: "missing" };
  try {
    const parsed = dataPlaneStateSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? { state: parsed.data } : { problem: `invalid: ${parsed.error.issues[0]?.message ?? "?"}` };
  } catch (err) {
    return { problem: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Follows the state file the worker writes (whole-file renames): a directory watch for the
 * moment it changes, and a slow poll as the safety net (a watch can miss an event). A broken or
 * missing file never replaces the last good state: the data plane keeps answering what it knew.
 */
export class StateFollower {
  private current: DataPlaneState = emptyDataPlaneState();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly file: string,
    private readonly onChange: (state: DataPlaneState) => void,
    private readonly log: (line: string) => void = () => {},
  ) {}

  get state(): DataPlaneState {
    return this.current;
  }

  start(pollMs = 1000): void {
    this.reload();
    try {
      const name = basename(this.file);
      this.watcher = watch(dirname(this.file), (_event, changed) => {
        if (!changed || changed === name) this.reload();
      });
      this.watcher.on("error", () => {}); // the poll goes on
    } catch (err) {
      this.log(`cannot watch ${dirname(this.file)} (${err instanceof Error ? err.message : String(err)}); polling every ${pollMs} ms`);
    }
    this.timer = setInterval(() => this.reload(), pollMs);
    this.timer.unref();
  }

  /** Reads the file again; applies it when it is valid and newer than what we have. */
  reload(): void {
    const r = readStateFile(this.file);
    if ("problem" in r) {
      if (r.problem !== "missing") this.log(`state file ${this.file}: ${r.problem}; keeping generation ${this.current.generation}`);
      return;
    }
    if (r.state.generation === this.current.generation && this.current.generation !== 0) return;
    this.current = r.state;
    this.onChange(r.state);
  }

  stop(): void {
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
  }
}
