/** A container's `KEY=value` environment list as a record (the first `=` ends the key). */
export function envRecord(list: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of list) {
    const eq = kv.indexOf("=");
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return env;
}
