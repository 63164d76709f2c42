import { tierEnvRoutes } from "@/lib/tier-env";

/** The organization's env vars: `{"vars": {"KEY": "value"}}`; PUT replaces the whole set. */
export const { GET, PUT } = tierEnvRoutes("organization", "id");
