// The web app's HTTP server: Next.js's request handler behind a plain node:http server, so the one
// thing Next does not give a route (the socket's peer address) is resolved here, against the
// trusted proxies, into CLIENT_IP_HEADER; better-auth's sign-in rate limit keys on that header.
// It also answers the build's static files from their precompressed brotli copies (static-br.mjs).
// `npm start` and `npm test` run this instead of `next start` (PORT, LEVELRAIL_TRUSTED_PROXIES).
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { CLIENT_IP_HEADER, clientIp, trustList } from "./client-ip.mjs";
import { securityHeaders } from "./headers.mjs";
import { brotliStatic } from "./static-br.mjs";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.PORT ?? 3000);
const trusted = trustList(
  (process.env.LEVELRAIL_TRUSTED_PROXIES ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

const app = next({ dev: false, dir, port });
await app.prepare();
const handle = app.getRequestHandler();
// The build's JavaScript and CSS as brotli written after `next build` (static-br.mjs), where accepted.
const staticBr = brotliStatic(join(dir, ".next"), securityHeaders);

createServer((req, res) => {
  const forwarded = req.headers["x-forwarded-for"];
  req.headers[CLIENT_IP_HEADER] = clientIp(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(",") : forwarded, trusted);
  staticBr(req, res).then(
    (answered) => answered || handle(req, res),
    () => handle(req, res),
  );
}).listen(port, () => console.log(`web ready on http://localhost:${port}`));
