// The port probes' programs, run with `node -e` (a constant program, its inputs argv): by the join's
// probe containers on the engines (`join.ts`) and by the test harness in network namespaces.

/** The probe's payload: a listener counts only this, not any datagram that happens to arrive. */
const PAYLOAD = "levelrail-join-probe";

/** argv: proto port ms. Prints `listening` or `busy`, then `got` when the probe arrives; exits 0 on it, 2 on timeout. */
export const LISTENER = `
const [proto, port, ms] = process.argv.slice(1);
const net = require("node:net"), dgram = require("node:dgram");
const busy = (e) => { console.log(e.code === "EADDRINUSE" ? "busy" : "error " + e.message); process.exit(3); };
setTimeout(() => process.exit(2), Number(ms));
if (proto === "udp") {
  const s = dgram.createSocket("udp4");
  s.on("error", busy);
  s.on("message", (m) => { if (String(m) === "${PAYLOAD}") { console.log("got"); process.exit(0); } });
  s.bind(Number(port), "0.0.0.0", () => console.log("listening"));
} else {
  const s = net.createServer((c) => { console.log("got"); c.destroy(); process.exit(0); });
  s.on("error", busy);
  s.listen(Number(port), "0.0.0.0", () => console.log("listening"));
}`;

/** argv: proto host port ms. TCP: exits 0 once connected, 1 on refusal or timeout; UDP: sends the payload a few times, exits 0. */
export const SENDER = `
const [proto, host, port, ms] = process.argv.slice(1);
const net = require("node:net"), dgram = require("node:dgram");
if (proto === "udp") {
  const s = dgram.createSocket("udp4");
  let n = 0;
  const send = () => s.send("${PAYLOAD}", Number(port), host, () => { if (++n < 10) setTimeout(send, 100); else s.close(); });
  send();
} else {
  const c = net.connect(Number(port), host, () => { c.destroy(); process.exit(0); });
  c.setTimeout(Number(ms), () => { console.log("timeout after " + ms + " ms"); process.exit(1); });
  c.on("error", (e) => { console.log(e.code || e.message); process.exit(1); });
}`;
