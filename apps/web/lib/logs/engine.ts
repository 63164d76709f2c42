import "server-only";
import { type LogReader, dockerLogReader } from "@levelrail/docker/logs";
import { server } from "../server";
import { type LogCaps, MAX_TAIL_BYTES, streamSlots } from "./caps";

// On globalThis so that every route bundle (and dev reloads) share one connection setup.
const KEY = Symbol.for("levelrail.web.logReader");
type Holder = { [KEY]?: LogReader };

/** The web app's one window on the engine: read-only (list a service's containers, read their logs). */
export function logReader(): LogReader {
  const holder = globalThis as Holder;
  holder[KEY] ??= dockerLogReader({ dockerHost: server().dockerHost });
  return holder[KEY];
}

const CAPS = Symbol.for("levelrail.web.logCaps");
type CapsHolder = { [CAPS]?: LogCaps };

/** The process's one count of live log streams (every route bundle shares it) and the tail's byte cap. */
export function logCaps(): LogCaps {
  const holder = globalThis as CapsHolder;
  holder[CAPS] ??= { tailBytes: MAX_TAIL_BYTES, slots: streamSlots() };
  return holder[CAPS];
}
