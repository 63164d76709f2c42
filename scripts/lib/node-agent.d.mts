export declare const nodeAgentName: (short: string) => string;
export declare const controlNetworkName: (short: string) => string;
export declare const edgeFeedHost: (short: string) => string;
export declare const FEED_TOKEN_FILE: string;
export declare const FEED_TOKEN_SECRET_FILE: string;
/** Pure: the agents' global service (a swarm ServiceSpec). */
export declare function nodeAgentSpec(o: {
  short: string;
  image: string;
  version: string;
  managerNodeId: string;
  nodeEngineSocket: string;
  httpPort: number;
  httpsPort: number | null;
  meshPort: number;
  feedSecret: { id: string; name: string };
}): {
  Name: string;
  TaskTemplate: { ContainerSpec: { Env: string[]; Secrets: { SecretID: string; SecretName: string; File: { Name: string; UID: string; GID: string; Mode: number } }[] } };
};
/** `<data dir>/dataplane/edge-feed.token`, made once: the token the edge feed asks of every request. */
export declare function ensureFeedToken(dataDir: string): string;
export declare function ensureNodeAgents(o: {
  /** Where the feed's token is (`ensureFeedToken`): the agents get it as a swarm secret. */
  dataDir: string;
  short: string;
  version: string;
  registry: string;
  registryAuth?: { username: string; password: string; serveraddress: string } | null;
  nodeEngineSocket?: string;
  httpPort: number;
  httpsPort: number | null;
  meshPort: number;
}): Promise<string>;
