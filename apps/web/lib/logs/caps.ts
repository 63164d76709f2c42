import { LevelrailError } from "@levelrail/spec/errors";
import type { LogLineEvent } from "./follow";

/**
 * What one logs request may cost the web app: a tail's bytes, and how many live streams (each
 * polls the database every `pollMs` and holds an engine connection) are open at once.
 */

/** The most a non-following response (`?tail=`) holds: the newest lines that fit, oldest dropped. */
export const MAX_TAIL_BYTES = 4 * 1024 * 1024;
/** Live streams (`?follow=true`) one user may have open at once (a tab each). */
export const MAX_STREAMS_PER_USER = 4;
/**
 * Live streams of one organization's services and builds open at once, its users together: below
 * `MAX_STREAMS`, so one organization's users cannot hold every slot and starve the others' logs.
 */
export const MAX_STREAMS_PER_ORG = 8;
/** Live streams the installation (this web process) serves at once, every user together. */
export const MAX_STREAMS = 20;
/** What a refused stream is told to wait (`Retry-After`): EventSource's own retry is 2 s. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

/** The header that says a tail was cut to fit `MAX_TAIL_BYTES`: how many older lines were left out. */
export const TRUNCATED_HEADER = "x-levelrail-logs-truncated";

/** Characters JSON writes escaped (as two to six characters); control characters are the point. */
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/** The bytes a line takes in the response: its JSON (as the response writes it) and a comma. */
export function lineBytes(e: LogLineEvent): number {
  const { type: _type, ...wire } = e;
  // Most lines need no escape: their size without building their JSON (a copy of every line).
  if (!ESCAPED.test(e.line) && !ESCAPED.test(e.container)) {
    return Buffer.byteLength(e.line, "utf8") + Buffer.byteLength(JSON.stringify({ ...wire, line: "" }), "utf8") + 1;
  }
  return Buffer.byteLength(JSON.stringify(wire), "utf8") + 1;
}

/**
 * The newest lines whose JSON fits in `capBytes`, oldest first, as they arrive: a line pushes out
 * the oldest ones once the total passes the cap, so memory stays near the cap whatever `tail` asked.
 * A single line larger than the cap is kept alone (a line is never cut here).
 */
export class TailWindow {
  private readonly lines: ({ e: LogLineEvent; bytes: number } | undefined)[] = [];
  private head = 0;
  private bytes = 2; // the brackets
  private droppedLines = 0;

  constructor(private readonly capBytes: number) {}

  push(e: LogLineEvent): void {
    const bytes = lineBytes(e);
    this.lines.push({ e, bytes });
    this.bytes += bytes;
    while (this.bytes > this.capBytes && this.lines.length - this.head > 1) {
      const old = this.lines[this.head];
      this.lines[this.head] = undefined; // let it go now, not at compaction
      this.head++;
      if (old) this.bytes -= old.bytes;
      this.droppedLines++;
    }
    // Compact once the dropped prefix is half the array, so it never grows past twice what is kept.
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The kept lines, oldest first (a slot is emptied once its line is sent). */
  kept(): (LogLineEvent | undefined)[] {
    return this.lines.slice(this.head).flatMap((l) => (l ? [l.e] : []));
  }

  /** How many older lines were left out to fit. */
  get dropped(): number {
    return this.droppedLines;
  }
}

/** Taken when a live stream opens; given back (once) when it ends, however it ends. */
export type Release = () => void;

/**
 * Counts live streams per user, per organization (the one whose service or build is followed) and
 * in all, refusing one over any limit with a 429 that says when to try again. One per web process
 * (the installation's one web app), shared by every route. `perOrg` unset: no organization limit
 * below `total` (the process's own set, `streamSlots`, has one).
 */
export class StreamSlots {
  private readonly perUser = new Map<string, number>();
  private readonly perOrg = new Map<string, number>();
  private total = 0;

  constructor(readonly limits: { perUser: number; perOrg?: number; total: number; retryAfterSeconds: number }) {}

  /** A slot for `userId` following a service or build of `orgId`, or a `too_many` error naming the limit that was hit. */
  acquire(userId: string, orgId: string): Release {
    const mine = this.perUser.get(userId) ?? 0;
    const ours = this.perOrg.get(orgId) ?? 0;
    const { perUser, perOrg = Number.POSITIVE_INFINITY, total, retryAfterSeconds } = this.limits;
    if (mine >= perUser) {
      throw new LevelrailError("too_many", `follow: you already have ${perUser} live log streams open; close one (another tab) or try again later`, { field: "follow", retryAfterSeconds });
    }
    if (ours >= perOrg) {
      throw new LevelrailError("too_many", `follow: this organization already has ${perOrg} live log streams open (its members together); close one or try again later`, { field: "follow", retryAfterSeconds });
    }
    if (this.total >= total) {
      throw new LevelrailError("too_many", `follow: the panel is serving its limit of ${total} live log streams; try again shortly`, { field: "follow", retryAfterSeconds });
    }
    this.perUser.set(userId, mine + 1);
    this.perOrg.set(orgId, ours + 1);
    this.total++;
    let released = false;
    const giveBack = (counts: Map<string, number>, key: string) => {
      const left = (counts.get(key) ?? 1) - 1;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    };
    return () => {
      if (released) return;
      released = true;
      this.total--;
      giveBack(this.perUser, userId);
      giveBack(this.perOrg, orgId);
    };
  }

  /** Open streams: in all, or of one user. */
  open(userId?: string): number {
    return userId === undefined ? this.total : (this.perUser.get(userId) ?? 0);
  }

  /** Open streams of one organization's services and builds. */
  openIn(orgId: string): number {
    return this.perOrg.get(orgId) ?? 0;
  }
}

/** What `serviceLogs` is held to: the route passes the process's one set, tests their own. */
export interface LogCaps {
  tailBytes: number;
  slots: StreamSlots;
}

export const streamSlots = () => new StreamSlots({ perUser: MAX_STREAMS_PER_USER, perOrg: MAX_STREAMS_PER_ORG, total: MAX_STREAMS, retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS });
