import type { Phase, ServiceView } from "@levelrail/spec/service";

/** An app as GET /api/v1/apps returns it. */
export interface AppItem {
  id: string;
  name: string;
  orgId: string;
  createdAt: string;
  services: number;
}

/** A service as GET /api/v1/services returns it: desired state plus what the worker last saw. */
export interface ServiceItem extends ServiceView {
  phase: Phase;
  activeContainer: string | null;
  message: string;
}
