/** One call to better-auth's routes (/api/auth/…) from a page; `message` on a refusal. */
export async function authPost<T = Record<string, unknown>>(path: string, body: unknown): Promise<{ ok: boolean; status: number; data: T | null; message?: string }> {
  const res = await fetch(`/api/auth${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => null);
  if (!res) return { ok: false, status: 0, data: null, message: "the panel did not answer; try again" };
  const json = (await res.json().catch(() => null)) as (T & { message?: string }) | null;
  return { ok: res.ok, status: res.status, data: res.ok ? json : null, message: json?.message };
}
