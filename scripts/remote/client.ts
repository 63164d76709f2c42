// The remote commands' one way to the panel: its HTTP API with a bearer token.
import type { Connection } from "./credentials";

/** A refusal of the panel (its error body's message), or a transport failure. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export async function call(conn: Connection, method: "GET" | "POST", path: string, opts: { body?: unknown; accept?: string } = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`${conn.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${conn.token}`,
        accept: opts.accept ?? "application/json",
        ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  } catch (err) {
    throw new RemoteError(`cannot reach the panel at ${conn.url}: ${(err as Error).message}`, null);
  }
  if (res.ok) return res;
  const text = await res.text();
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body.error?.message) message = body.error.message;
  } catch {
    // not the API's JSON error: keep the status line
  }
  if (res.status === 401) message = `${message} (is the token right? set LEVELRAIL_TOKEN or run \`levelrail login --url ${conn.url}\`)`;
  throw new RemoteError(message, res.status);
}

export const getJson = async <T>(conn: Connection, path: string): Promise<T> => (await (await call(conn, "GET", path)).json()) as T;

/** The id of `<project>/<environment>` among the projects the token sees. */
export async function environmentId(conn: Connection, ref: string): Promise<string> {
  // A project's name is free text (it may hold a "/"); an environment's is a DNS label: split at the last "/".
  const cut = ref.lastIndexOf("/");
  const [projectName, envName] = [ref.slice(0, cut).trim(), ref.slice(cut + 1)];
  if (cut < 0 || !projectName || !/^[a-z][a-z0-9-]{0,62}$/.test(envName)) throw new RemoteError(`--env ${ref}: give <project>/<environment>, like shop/production`, null);
  const projects = (await getJson<{ id: string; name: string }[]>(conn, "/api/v1/projects")).filter((p) => p.name === projectName);
  if (projects.length === 0) throw new RemoteError(`no project named ${projectName} that this token can see`, null);
  for (const p of projects) {
    const envs = await getJson<{ id: string; name: string }[]>(conn, `/api/v1/projects/${p.id}/environments`);
    const found = envs.find((e) => e.name === envName);
    if (found) return found.id;
  }
  throw new RemoteError(`project ${projectName} has no environment named ${envName}`, null);
}
