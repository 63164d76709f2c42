// `.env` text as a map, apart from form.ts: the env editor loads it when "Add from .env" is pressed.

/** A value as .env files write it: trimmed, and one pair of matching surrounding quotes removed. */
function dotenvValue(raw: string): string {
  const v = raw.trim();
  const quote = v[0];
  return v.length >= 2 && (quote === '"' || quote === "'") && v.endsWith(quote) ? v.slice(1, -1) : v;
}

/**
 * `.env` text as a map: `KEY=value` lines, blank lines and `#` comments
 * skipped, a leading `export ` dropped, matching surrounding quotes stripped.
 * A line without `=` is an error naming it; keys are checked by the caller.
 */
export function parseEnvLines(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const line = trimmed.replace(/^export\s+/, "");
    const eq = line.indexOf("=");
    const key = eq < 0 ? "" : line.slice(0, eq).trim();
    if (key === "") return { error: `line ${i + 1}: must be KEY=value` };
    env[key] = dotenvValue(line.slice(eq + 1));
  }
  return { env };
}
