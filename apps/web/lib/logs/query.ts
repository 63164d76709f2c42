import { LevelrailError } from "@levelrail/spec/errors";

/** What `GET …/logs` was asked for. */
export interface LogQuery {
  /** ISO time (UTC, to the nanosecond) or null: from the container's start. */
  since: string | null;
  tail: number;
  /** A container of this service by name, or null: the active one (followed across deploys). */
  container: string | null;
  follow: boolean;
}

export const DEFAULT_TAIL = 500;
export const MAX_TAIL = 10_000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

const bad = (field: string, message: string) => new LevelrailError("invalid_input", `${field}: ${message}`, { field });

/** `10m`, `2h`, `30s`, `1d` ago, or an ISO time; as an ISO time. */
export function parseSince(value: string, now: number): string {
  const d = /^(\d{1,6})([smhd])$/.exec(value);
  if (d) return new Date(now - Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS]).toISOString();
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const t = Date.parse(value);
    if (Number.isFinite(t)) {
      // Keep a fraction finer than milliseconds (the engine's own `at`) as it was written.
      const fine = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{4,9})Z$/.exec(value);
      return fine ? `${fine[1]}.${fine[2]}Z` : new Date(t).toISOString();
    }
  }
  throw bad("since", "must be an ISO time or a duration like 30s, 10m, 2h or 1d");
}

/** Parses `?since=&tail=&container=&follow=`; a bad value is a 400 naming its field. */
export function parseLogQuery(params: URLSearchParams, now = Date.now()): LogQuery {
  const since = params.get("since");
  const tail = params.get("tail");
  const container = params.get("container");
  const follow = params.get("follow");
  let tailN = DEFAULT_TAIL;
  if (tail !== null && tail !== "") {
    if (tail === "all") tailN = MAX_TAIL;
    else if (/^\d{1,6}$/.test(tail) && Number(tail) <= MAX_TAIL) tailN = Number(tail);
    else throw bad("tail", `must be a whole number of lines from 0 to ${MAX_TAIL}`);
  }
  if (container !== null && container !== "" && !/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/.test(container)) throw bad("container", "must be a container name");
  if (follow !== null && follow !== "" && !["true", "false", "1", "0"].includes(follow)) throw bad("follow", "must be true or false");
  return {
    since: since === null || since === "" ? null : parseSince(since, now),
    tail: tailN,
    container: container === null || container === "" ? null : container,
    follow: follow === "true" || follow === "1",
  };
}
