export declare const nodeAgentName: (short: string) => string;
export declare const controlNetworkName: (short: string) => string;
export declare const edgeFeedHost: (short: string) => string;
export declare function ensureNodeAgents(o: {
  short: string;
  version: string;
  registry: string;
  registryAuth?: { username: string; password: string; serveraddress: string } | null;
  nodeEngineSocket?: string;
  httpPort: number;
  httpsPort: number | null;
  meshPort: number;
}): Promise<string>;
