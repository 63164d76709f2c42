// How diff and apply print a plan: one line per object and field, secret values never (the plan has none).
import type { Plan, PlanItem } from "@levelrail/services/spec/plan";

const show = (v: unknown): string => (v === undefined ? "(none)" : typeof v === "string" ? v : JSON.stringify(v));

const SIGN: Record<PlanItem["action"], string> = { create: "+", change: "~", delete: "-" };

function itemLines(c: PlanItem): string[] {
  const head = `${SIGN[c.action]} ${c.kind} ${c.name}`;
  if (c.kind === "secret") return [`${head} (${c.action === "delete" ? "delete" : "set"}; value not shown)`];
  if (c.action !== "change") return [`${head} (${c.action})`];
  const lines = [head, ...c.fields.map((f) => `    ${f.field}: ${show(f.from)} -> ${show(f.to)}`)];
  if (c.refused) lines.push(`    refused: ${c.refused}`);
  return lines;
}

/** The plan as text; `prune`: whether what is left out would be deleted (it is then in `changes`). */
export function formatPlan(plan: Plan): string[] {
  const out = plan.changes.flatMap(itemLines);
  for (const l of plan.left) out.push(`= ${l.kind} ${l.name} is not in the file: kept (--prune deletes it)`);
  for (const m of plan.missingSecrets) out.push(`! secret ${m.service}/${m.key} is named but has no value: give --secret ${m.key}=@env:VAR (or PUT …/services/${m.service}/secrets/${m.key})`);
  for (const d of plan.drift) out.push(`! drift: ${d.service} runs ${d.running}, declares ${d.declared} (apply --deploy deploys it)`);
  if (out.length === 0) out.push("nothing to do: the environment matches the file");
  return out;
}

/** `--secret KEY=@env:VAR` pairs as values from `env`; a literal value is refused (it would sit in shell history). */
export function secretValues(pairs: string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=@env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(pair);
    if (!m) throw new Error(`--secret ${pair.split("=")[0]}=…: give KEY=@env:VAR (the value is read from the environment variable VAR, never from the command line)`);
    const [, key, name] = m as unknown as [string, string, string];
    const value = env[name];
    if (value === undefined) throw new Error(`--secret ${key}=@env:${name}: ${name} is not set`);
    out[key] = value;
  }
  return out;
}
