import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { type NotificationPayload, SIGNATURE_HEADER, type WebhookConfig, slackBodyOf } from "@levelrail/spec/notifications";
import { type ResolvedAddress, type TargetPolicy, TargetError, bareHost, resolveTarget } from "./address";

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes, keyed with the channel's secret (its UTF-8 bytes). */
export function signatureOf(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The exact bytes a webhook sends: the payload and the delivery's id as JSON, or a Slack `{text}`. */
export function webhookBody(format: WebhookConfig["format"], deliveryId: string, payload: NotificationPayload): Buffer {
  const body = format === "slack" ? slackBodyOf(payload) : { id: deliveryId, ...payload };
  return Buffer.from(JSON.stringify(body), "utf8");
}

export interface SendOptions {
  /** The whole request's limit (connect, send, answer). */
  timeoutMs: number;
  /** The installation's address policy (LEVELRAIL_ALLOW_PRIVATE_TARGETS, the panel's host). */
  policy: TargetPolicy;
  /** The delivery's deadline, when the caller keeps one. */
  signal?: AbortSignal;
}

/**
 * POSTs one notification: resolve the host once and check every address (unless the installation
 * allows private targets), connect to that very address, never follow a redirect. Resolves when the
 * receiver answered 2xx; otherwise throws an Error saying why: the host and the status code, never
 * the URL's path or query (they may hold a token) nor anything the receiver answered.
 */
export async function sendWebhook(config: WebhookConfig, secret: string, deliveryId: string, payload: NotificationPayload, o: SendOptions): Promise<void> {
  const url = new URL(config.url);
  const host = bareHost(url.hostname);
  const deadline = o.signal ? AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)]) : AbortSignal.timeout(o.timeoutMs);
  const target = await resolveTarget(host, o.policy);
  const body = webhookBody(config.format, deliveryId, payload);
  const headers = {
    "content-type": "application/json",
    "content-length": String(body.length),
    "user-agent": "Levelrail-Notifications",
    [SIGNATURE_HEADER.toLowerCase()]: signatureOf(secret, body),
    "x-levelrail-event": payload.event,
    "x-levelrail-delivery": deliveryId,
    connection: "close",
  };
  const status = await post(url, host, target, headers, body, deadline, o.timeoutMs);
  if (status >= 200 && status < 300) return;
  if (status >= 300 && status < 400) throw new Error(`${host} answered ${status} (a redirect); redirects are not followed`);
  throw new Error(`${host} answered ${status}`);
}

function post(url: URL, host: string, target: ResolvedAddress, headers: Record<string, string>, body: Buffer, signal: AbortSignal, timeoutMs: number): Promise<number> {
  // Connect to the address resolved and checked above, whatever the name would resolve to now.
  const pinned: LookupFunction = (_name, options, cb) => {
    if (options.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || (url.protocol === "https:" ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers,
        lookup: pinned,
        agent: false,
        signal,
        ...(url.protocol === "https:" ? { servername: host } : {}),
      },
      (res) => {
        // The answer's body is not needed: read (and drop) a little of it, then hang up.
        res.on("data", () => {});
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(res.statusCode ?? 0));
        res.resume();
      },
    );
    req.on("error", (err: Error & { code?: string }) => {
      if (signal.aborted) reject(new Error(`${host} did not answer within ${timeoutMs} ms`));
      else if (err instanceof TargetError) reject(err);
      else reject(new Error(`could not reach ${host}:${url.port || (url.protocol === "https:" ? 443 : 80)} (${err.code ?? "connection failed"})`));
    });
    req.end(body);
  });
}
