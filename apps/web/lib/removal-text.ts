// Apart from format.ts (on every page): only the confirmation of "Delete environment" says it.

/** "a", "a and b", "a, b and c". */
const listed = (names: readonly string[]) => (names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`);

/** What deleting a database removes, in words: its container, and its data only when `dropData`. */
function databasesText(databases: readonly string[], dropData: boolean): string | null {
  if (!databases.length) return null;
  if (databases.length === 1) return `database ${listed(databases)} with its container${dropData ? " and its data" : " (its data volume is kept)"}`;
  return `databases ${listed(databases)} with their containers${dropData ? " and their data" : " (their data volumes are kept)"}`;
}

/** What deleting an environment removes, in words, naming its apps, services and databases. */
export function removalText(environment: string, apps: readonly string[], services: readonly string[], databases: readonly string[] = [], dropData = false): string {
  const parts = [
    apps.length ? `app${apps.length === 1 ? "" : "s"} ${listed(apps)}` : null,
    services.length ? `service${services.length === 1 ? ` ${listed(services)} with its container and secrets` : `s ${listed(services)} with their containers and secrets`}` : null,
    databasesText(databases, dropData),
    "the environment's env vars",
  ].filter((p): p is string => p !== null);
  return `Deleting ${environment} removes ${parts.join("; ")}. This cannot be undone.`;
}
