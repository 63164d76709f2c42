import { STORAGE_ENV_KEYS } from "@levelrail/spec/storage";
import { json, route } from "@/lib/api";

/** Every env key a storage attachment injects; the UI reads the list from here. */
export const GET = route(async () => json(STORAGE_ENV_KEYS));
