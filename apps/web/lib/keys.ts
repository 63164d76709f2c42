/** Query keys shared by server prefetch and client queries; mutations invalidate by these. */
export const keys = {
  apps: () => ["apps"] as const,
  services: () => ["services"] as const,
  service: (name: string) => ["service", name] as const,
  status: (name: string) => ["service", name, "status"] as const,
  deploys: (name: string) => ["service", name, "deploys"] as const,
};

/** How often live state is polled, so phase changes show without a reload. */
export const LIVE_INTERVAL_MS = 1000;
