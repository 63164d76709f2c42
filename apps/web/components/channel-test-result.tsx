"use client";
import type { DeliveryView } from "@/lib/types";
import { Alert } from "./alert";

/** A channel's "Send test" outcome (NotificationsCard): delivered, or failed with the receiver's error. */
export function TestResult({ name, delivery }: { name: string; delivery: DeliveryView }) {
  if (delivery.status === "delivered") {
    return (
      <small className="success" role="status">
        Test delivered to {name}
      </small>
    );
  }
  return (
    <Alert inline>
      Test to {name} failed: {delivery.lastError}
    </Alert>
  );
}
