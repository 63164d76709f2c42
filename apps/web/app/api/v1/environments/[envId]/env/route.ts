import { tierEnvRoutes } from "@/lib/tier-env";

/** The environment's env vars: `{"vars": {"KEY": "value"}}`; PUT replaces the whole set. */
export const { GET, PUT } = tierEnvRoutes("environment", "envId");
