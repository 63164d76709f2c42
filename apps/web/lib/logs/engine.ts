import "server-only";
import { type LogReader, dockerLogReader } from "@levelrail/docker/logs";
import { server } from "../server";

// On globalThis so that every route bundle (and dev reloads) share one connection setup.
const KEY = Symbol.for("levelrail.web.logReader");
type Holder = { [KEY]?: LogReader };

/** The web app's one window on the engine: read-only (list a service's containers, read their logs). */
export function logReader(): LogReader {
  const holder = globalThis as Holder;
  holder[KEY] ??= dockerLogReader({ dockerHost: server().dockerHost });
  return holder[KEY];
}
