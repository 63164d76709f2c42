import { z } from "zod";
import type { Inventory } from "../ports";

/**
 * What a PostgreSQL database holds, as one SQL statement answering one JSON document:
 * `{"tables": {"<schema>.<table>": rows}, "schema": ["<line>", …]}`. Every base table's exact row
 * count (`count(*)` through `query_to_xml`, so one statement counts them all) and one line per
 * column (type, nullability), constraint and index, of every schema but the system ones.
 * Identifiers are quoted (`format('%I')`), and JSON escapes whatever a name holds (spaces, quotes,
 * newlines), so no name can be mistaken for the format around it. Run it inside a
 * REPEATABLE READ transaction so every count reads the same snapshot.
 */
const USER_RELATION = "n.nspname <> 'information_schema' AND n.nspname !~ '^pg_' AND c.relpersistence <> 't'";

export const INVENTORY_SQL = `
SELECT jsonb_build_object(
  'tables', COALESCE((
    SELECT jsonb_object_agg(
      format('%I.%I', n.nspname, c.relname),
      (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM ONLY %I.%I', n.nspname, c.relname), false, true, '')))[1]::text::bigint)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND ${USER_RELATION}
  ), '{}'::jsonb),
  'schema', COALESCE((
    SELECT jsonb_agg(line) FROM (
      SELECT format('column %I.%I %I %s%s', n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                    CASE WHEN a.attnotnull THEN ' not null' ELSE '' END) AS line
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND ${USER_RELATION} AND a.attnum > 0 AND NOT a.attisdropped
      UNION ALL
      SELECT format('constraint %I.%I %I %s', n.nspname, c.relname, k.conname, pg_get_constraintdef(k.oid))
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND ${USER_RELATION}
      UNION ALL
      SELECT format('index %I.%I %s', n.nspname, c.relname, pg_get_indexdef(i.indexrelid))
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND ${USER_RELATION}
    ) lines
  ), '[]'::jsonb)
)::text;`
  .replace(/\s+/g, " ")
  .trim();

const answer = z.object({
  tables: z.record(z.string(), z.number().int().nonnegative()),
  schema: z.array(z.string()),
});

/** The inventory from the lines `INVENTORY_SQL` printed (psql `-A -t`): tables in name order, schema lines sorted. */
export function parseInventory(lines: readonly string[]): Inventory {
  const text = lines.join("\n").trim();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`the inventory query answered something that is not JSON (${text.length} characters)`);
  }
  const parsed = answer.safeParse(json);
  if (!parsed.success) throw new Error(`the inventory query answered an unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const tables = Object.fromEntries(Object.entries(parsed.data.tables).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { tables, schema: [...parsed.data.schema].sort() };
}
