/**
 * What a running database's status says, for a person: where services reach it and whether any
 * does yet ("shopdb:5432; no service attaches it yet", "shopdb:5432 for the services of 2 apps").
 */
export function readyMessage(name: string, port: number, attachedApps: number): string {
  const where = `accepting connections as ${name}:${port}`;
  if (attachedApps === 0) return `${where}; no service attaches it yet`;
  return `${where} for the services of ${attachedApps === 1 ? "1 app" : `${attachedApps} apps`} that attach it`;
}
