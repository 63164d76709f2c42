import { type Socket, createSocket } from "node:dgram";
import { type Server, createServer } from "node:http";
import { networkInterfaces } from "node:os";
import { dirname, join } from "node:path";
import type { Runtime } from "@levelrail/docker";
import { CONTROL_ROLE, NODE_STATS_DIR, EDGE_ACKS_FILE, EDGE_CADDY_FILE, EDGE_FEED_PORT, EDGE_FEED_TOKEN_FILE, type DataPlaneState, controlNetworkName } from "@levelrail/spec/dataplane";
import { Labels, instanceFilter, meshZone } from "@levelrail/spec/naming";
import { AddressBook } from "./addresses";
import { AckBook, feedServer, fileToken } from "./feed";
import { TaskLiveness } from "./liveness";
import { type Scope, type StateIndex, answer, indexState, refuse } from "./answer";
import { isDirect } from "./local";
import { StateFollower } from "./state";
import { gatewaySubnet, inSubnet, listenAddress } from "./subnet";
import { type SniffingServer, sniffingServer } from "./tcp";

export interface DataPlaneOptions {
  /** The file the worker writes (`<data dir>/dataplane/state.json`). */
  stateFile: string;
  shortName: string;
  runtime: Runtime;
  /**
   * This replica's loopback port: DNS over UDP, and on TCP both DNS (for Caddy) and HTTP (health,
   * TLS `ask`, the fallback page).
   */
  port: number;
  /** Reported by `/healthz`, so a newer panel can tell an older data plane and replace it. */
  version: string;
  /** Which of the two mesh DNS replicas this is (reported by `/healthz`). */
  replica?: number;
  /** How often app networks are listed to (re)bind their gateways. */
  syncMs?: number;
  /** Probe swarm tasks (`TaskLiveness`; default on). */
  probeTasks?: boolean;
  /** Bind each app network's gateway on port 53 (off in tests that do not need containers to resolve). */
  gateways?: boolean;
  log: (line: string) => void;
}

interface Listener {
  socket: Socket;
  scope: Scope;
  /** A gateway's: its network's subnet, the only sources it answers (null: none). */
  subnet?: string | null;
}

/**
 * Engine events after which a container may run or stop, or hold other addresses: the others
 * (`update`, `exec_*`, `attach`, `health_status`, …) change neither, and a lookup after an
 * invalidation waits for the engine.
 */
const ADDRESS_EVENTS = new Set(["start", "restart", "die", "stop", "destroy", "rename", "pause", "unpause"]);
export const changesAddress = (action: string): boolean => ADDRESS_EVENTS.has(action);

/** `container\nappId` of every container entry (swarm tasks carry their own addresses). */
export function containerPairs(state: DataPlaneState): Set<string> {
  return new Set(Object.values(state.services).flatMap((e) => (e.tasks ? [] : [`${e.container}\n${e.appId}`])));
}

/** Local names that never get a certificate (the TLS `ask` says no). */
const isLocal = (d: string) => d === "localhost" || d.endsWith(".localhost") || d.endsWith(".local") || d.endsWith(".internal");

/**
 * The data plane's own process: the mesh DNS (loopback for Caddy, each app network's gateway for
 * its containers) and the small HTTP side Caddy needs (TLS `ask`, the page for a domain with no
 * ready container). It needs neither the worker nor PostgreSQL: it answers from the last state
 * file it read and from container addresses it asks the engine for.
 */
export class DataPlane {
  private readonly zone: string;
  private readonly addresses: AddressBook;
  private readonly follower: StateFollower;
  private readonly liveness: TaskLiveness;
  private index: StateIndex = indexState({ version: 1, generation: 0, services: {}, domains: {} });
  private readonly listeners = new Map<string, Listener>();
  private readonly bindFailures = new Set<string>();
  private tcp: SniffingServer | null = null;
  private servingSince = 0;
  private timer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  /** On a swarm manager's edge: the feed the node agents read, on the control overlay (`feedServer`). */
  private feed: { host: string; server: Server } | null = null;
  private appNetworks: string[] = [];
  /** `container\nappId` of every container entry of the state last applied. */
  private pairs = new Set<string>();
  private stopped = false;
  private connectedOnce = false;

  constructor(private readonly o: DataPlaneOptions) {
    this.zone = meshZone(o.shortName);
    this.addresses = new AddressBook(o.runtime, o.shortName);
    this.liveness = new TaskLiveness({ log: o.log });
    this.follower = new StateFollower(o.stateFile, (s) => this.apply(s), o.log);
  }

  get state(): DataPlaneState {
    return this.follower.state;
  }

  /** Where each socket listens (`host:port`). */
  get listening(): string[] {
    return [...this.listeners.keys()];
  }

  async start(): Promise<void> {
    this.follower.start();
    // Before any socket: the tasks of the state it loaded are probed once, so its first answers
    // leave out the dead ones (the older replica it replaces knew them).
    if (this.o.probeTasks !== false) await this.liveness.start();
    await this.bind("127.0.0.1", this.o.port, { kind: "loopback" });
    this.unwatch = this.o.runtime.watchContainers(
      instanceFilter(this.o.shortName),
      (e) => {
        if (e.labels.name && changesAddress(e.action)) this.addresses.invalidate(e.labels.name);
      },
      () => {
        // Connected to the engine: events before this moment were not seen, so every address is
        // asked again (the first time too: a lookup may have come between the socket's bind and
        // this). After the first time the engine restarted, and its gateways may have changed.
        this.addresses.invalidateAll();
        if (this.connectedOnce) {
          this.o.log("the Docker engine is back: asking it again for every address and gateway");
          void this.syncGateways(true);
        }
        this.connectedOnce = true;
      },
    );
    if (this.o.gateways !== false) {
      await this.syncGateways(false);
      this.timer = setInterval(() => void this.syncGateways(false), this.o.syncMs ?? 2000);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.follower.stop();
    this.liveness.stop();
    this.unwatch?.();
    if (this.timer) clearInterval(this.timer);
    this.feed?.server.close();
    this.feed = null;
    // The TCP port first: a newer replica waiting to bind it takes over at once.
    const tcp = this.tcp?.close();
    for (const l of this.listeners.values()) l.socket.close();
    this.listeners.clear();
    await tcp;
  }

  /** Answers one query as a socket with `scope` would (tests, and the sockets themselves). */
  answer(msg: Buffer, scope: Scope): Promise<Buffer | null> {
    return answer(msg, {
      zone: this.zone,
      index: this.index,
      scope,
      address: (c, appId) => this.addresses.address(c, appId),
      fallbackPort: this.o.port,
      ttlSeconds: 1,
      live: (address, port) => this.liveness.isLive(address, port),
    });
  }

  private apply(state: DataPlaneState): void {
    this.index = indexState(state, this.index);
    this.liveness.setState(state);
    // Containers only: a swarm release's task addresses come with the state. Those just made
    // inactive keep their cached address while they still answer their `_ctr` name.
    const names = new Set([...Object.values(state.services).flatMap((e) => (e.tasks ? [] : [e.container])), ...this.index.retired.keys()]);
    this.addresses.retain(names);
    // A container newly named here, or named for another app (a database joined that app's
    // network), may have started or moved since we last asked. Those named before keep their
    // cached address: only an engine event changes it (`changesAddress`), and asking the engine
    // again at every state change made the next lookup of a name in use wait for it, at a switch
    // (when the engine is busy starting and removing containers).
    const pairs = containerPairs(state);
    for (const pair of pairs) if (!this.pairs.has(pair)) this.addresses.invalidate(pair.slice(0, pair.indexOf("\n")));
    this.pairs = pairs;
  }

  /**
   * Binds UDP host:port (SO_REUSEADDR: a newer data plane binds beside an older one and takes the
   * traffic over). A gateway's socket answers only its own network's containers: every app network
   * is a bridge of this host, so a container can send to another app's gateway too (REFUSED).
   */
  private bind(host: string, port: number, scope: Scope, subnet?: string | null): Promise<void> {
    const key = `${host}:${port}`;
    const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4", reuseAddr: true });
    socket.on("message", (msg, rinfo) => {
      const allowed = subnet === undefined || (subnet !== null && inSubnet(rinfo.address, subnet));
      void (allowed ? this.answer(msg, scope) : Promise.resolve(refuse(msg))).then(
        (reply) => reply && socket.send(reply, rinfo.port, rinfo.address),
        (err: unknown) => this.o.log(`[dns] ${key}: ${err instanceof Error ? err.message : String(err)}`),
      );
    });
    return new Promise((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, host, () => {
        socket.removeListener("error", reject);
        socket.on("error", (err) => this.o.log(`[dns] ${key}: ${err.message}`));
        const old = this.listeners.get(key);
        this.listeners.set(key, { socket, scope, ...(subnet === undefined ? {} : { subnet }) });
        old?.socket.close(); // after the new one is bound: no moment without a listener
        this.bindFailures.delete(key);
        resolve();
      });
    });
  }

  /** Every app network of ours gets a listener on its gateway; `rebind` replaces the existing ones too. */
  private async syncGateways(rebind: boolean): Promise<void> {
    if (this.stopped) return;
    let networks;
    try {
      networks = await this.o.runtime.listNetworks(instanceFilter(this.o.shortName));
    } catch {
      return; // the engine is away; the sockets we have keep answering
    }
    const wanted = new Map<string, { appId: string; subnet: string | null }>(); // listen address → its app and subnet
    const local = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
    for (const n of networks) {
      const appId = n.labels[Labels.app];
      if (!appId || !n.gateway) continue;
      const subnet = gatewaySubnet(n.gateway, n.subnets);
      wanted.set(listenAddress(n.gateway, subnet, local), { appId, subnet });
    }
    this.appNetworks = networks.filter((n) => n.labels[Labels.app]).map((n) => n.name);
    const control = networks.find((n) => n.name === controlNetworkName(this.o.shortName) && n.labels[Labels.role] === CONTROL_ROLE);
    const controlSubnet = control?.gateway ? gatewaySubnet(control.gateway, control.subnets) : null;
    const feedHost = controlSubnet ? local.find((a) => inSubnet(a, controlSubnet)) : undefined;
    if (feedHost && this.feed?.host !== feedHost) await this.serveFeed(feedHost);
    for (const [host, { appId, subnet }] of wanted) {
      const key = `${host}:53`;
      const had = this.listeners.get(key);
      if (had && had.subnet === subnet && !rebind) continue;
      try {
        await this.bind(host, 53, { kind: "app", appId }, subnet);
      } catch (err) {
        if (!this.bindFailures.has(key)) this.o.log(`[dns] cannot listen on ${key} yet (${err instanceof Error ? err.message : String(err)}); retrying`);
        this.bindFailures.add(key);
      }
    }
    for (const [key, l] of this.listeners) {
      if (l.scope.kind === "app" && !wanted.has(key.slice(0, -":53".length))) {
        l.socket.close();
        this.listeners.delete(key);
      }
    }
  }

  /**
   * The edge feed on `host` (this namespace's address on the control overlay): the state, the
   * edge's Caddy config and the app overlays, for the node agents. One replica holds the port;
   * the other's bind fails (logged once) and it tries again at each sync.
   */
  private async serveFeed(host: string): Promise<void> {
    const acks = new AckBook(join(dirname(this.o.stateFile), EDGE_ACKS_FILE));
    const server = feedServer({
      state: () => this.follower.state,
      caddyFile: join(dirname(this.o.stateFile), EDGE_CADDY_FILE),
      networks: () => this.appNetworks,
      ack: (node, generation) => acks.ack(node, generation),
      statsDir: join(dirname(this.o.stateFile), NODE_STATS_DIR),
      token: fileToken(join(dirname(this.o.stateFile), EDGE_FEED_TOKEN_FILE)),
    });
    const key = `${host}:${EDGE_FEED_PORT}`;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(EDGE_FEED_PORT, host, () => {
          server.removeListener("error", reject);
          resolve();
        });
      });
    } catch (err) {
      if (!this.bindFailures.has(key)) this.o.log(`[feed] cannot serve the edge feed on ${key} (${err instanceof Error ? err.message : String(err)}); retrying`);
      this.bindFailures.add(key);
      return;
    }
    this.feed?.server.close();
    this.feed = { host, server };
    this.bindFailures.delete(key);
    this.o.log(`[feed] serving the edge feed to the node agents on ${key}`);
  }

  /**
   * The TCP side of the loopback port: DNS over TCP, health, TLS `ask` and the fallback page (after
   * `start`, once an older data plane was told to go: Node cannot bind TCP beside it, so this
   * retries until it has let go of the port; meanwhile lookups go to the other replica).
   */
  async serveTcp(retryMs = 20): Promise<void> {
    const http = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      const host = (req.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
      // Health and the TLS `ask` are for a process on this host asking directly (Caddy's `ask`, the
      // CLI), never for a request ingress forwarded here: the Host header is the client's to choose.
      const local = isDirect(req.socket.remoteAddress, req.headers);
      const send = (status: number, body: unknown) => {
        const text = typeof body === "string" ? body : JSON.stringify(body);
        res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json", "cache-control": "no-store" });
        res.end(text);
      };
      if (local && url.pathname === "/healthz") {
        return send(200, { version: this.o.version, replica: this.o.replica ?? 0, pid: process.pid, servingMs: Math.round(performance.now() - this.servingSince), generation: this.follower.state.generation, services: this.index.byContainer.size, domains: this.index.byDomain.size, listening: this.listening.length });
      }
      if (local && url.pathname === "/ask") {
        const domain = (url.searchParams.get("domain") ?? "").toLowerCase();
        return this.index.byDomain.has(domain) && !isLocal(domain) ? send(200, "ok\n") : send(404, "unknown domain\n");
      }
      // Ingress sent a request here: its domain has no ready container, or no service at all.
      if (this.index.byDomain.has(host)) return send(503, `${host}: the service has no ready container right now; its status in Levelrail says why\n`);
      return send(404, `${host}: no service has this domain\n`);
    });
    http.keepAliveTimeout = 5000;
    const tcp = sniffingServer((msg) => this.answer(msg, { kind: "loopback" }), http);
    const server = tcp.server;
    for (;;) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(this.o.port, "127.0.0.1", () => {
            server.removeListener("error", reject);
            resolve();
          });
        });
        this.tcp = tcp;
        this.servingSince = performance.now();
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || this.stopped) throw err;
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  }
}
