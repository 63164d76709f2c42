export declare function isSwarmManager(): Promise<boolean>;
export declare const edgeCaddyHome: (dataDir: string) => string;
export declare function stopSwarmEdge(short: string): Promise<string[]>;
export interface NodeAgentsOptions {
  /** The installation registry (`host:port`) every node pulls from. */
  registry: string;
  registryAuth?: { username: string; password: string; serveraddress: string } | null;
  /** Each node's engine socket on its host (a swarm template, e.g. with `{{.Node.ID}}`); default /var/run/docker.sock. */
  nodeEngineSocket?: string;
}
export declare function ensureSwarmEdge(o: { dataDir: string; short: string; httpPort: number; httpsPort: number | null; port: number; nodeAgents?: NodeAgentsOptions | null }): Promise<string>;
