// What one doctor check answers, and running a set of them: each with its own deadline, so
// doctor never hangs on a thing that does not answer.

export type Status = "ok" | "warn" | "fail";

export interface CheckResult {
  /** Stable id (`engine`, `port-http`, …): scripts key on it. */
  name: string;
  status: Status;
  /** One short sentence; when not ok, it says what to do. */
  message: string;
  /** Extra facts for `--json` (merged into the check's object). */
  detail?: Record<string, unknown>;
}

export interface Check {
  name: string;
  run(): Promise<CheckResult>;
}

export const ok = (name: string, message: string, detail?: Record<string, unknown>): CheckResult => ({ name, status: "ok", message, ...(detail ? { detail } : {}) });
export const warn = (name: string, message: string, detail?: Record<string, unknown>): CheckResult => ({ name, status: "warn", message, ...(detail ? { detail } : {}) });
export const fail = (name: string, message: string, detail?: Record<string, unknown>): CheckResult => ({ name, status: "fail", message, ...(detail ? { detail } : {}) });

export const CHECK_TIMEOUT_MS = 2000;

/** The error's code or first message line, never more (a connection string never reaches the output). */
export function reason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === "string" ? e.code : null;
  const message = typeof e?.message === "string" ? e.message.split("\n")[0]! : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Runs one check; a check that throws is a fail naming the error, one that takes longer than `timeoutMs` a fail too. */
export async function runCheck(check: Check, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve(fail(check.name, `did not finish within ${timeoutMs / 1000} s: what it asks does not answer`)), timeoutMs);
  });
  try {
    return await Promise.race([check.run().catch((err: unknown) => fail(check.name, `the check itself failed: ${reason(err)}`)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every check at once, each under its deadline; results in the order given. */
export async function runChecks(checks: Check[], timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult[]> {
  return Promise.all(checks.map((c) => runCheck(c, timeoutMs)));
}

export const allOk = (results: CheckResult[]) => results.every((r) => r.status !== "fail");

/** One line per check: `ok   engine        Docker 20.10.24 …`. */
export function formatLines(results: CheckResult[]): string[] {
  const width = Math.max(0, ...results.map((r) => r.name.length));
  return results.map((r) => `${r.status.padEnd(4)} ${r.name.padEnd(width)}  ${r.message}`);
}

/** `--json`: `{"checks": [{name, status, message, …detail}], "ok": bool}`; `ok` is false when any check fails. */
export function formatJson(results: CheckResult[]): string {
  const checks = results.map((r) => ({ ...r.detail, name: r.name, status: r.status, message: r.message }));
  return JSON.stringify({ checks, ok: allOk(results) }, null, 2);
}

/** A value several checks share (one `docker info` for the engine, live-restore, clock and disk), asked once. */
export function once<T>(get: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= get());
}

export const seconds = (ms: number) => {
  const s = Math.abs(ms) / 1000;
  if (s < 90) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 259_200) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
};
