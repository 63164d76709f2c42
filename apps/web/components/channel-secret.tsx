"use client";

/** A webhook channel's signing secret, right after it is created (NotificationChannelForm): shown this once. */
export function ChannelSecret({ name, secret }: { name: string; secret: string }) {
  return (
    <div className="stack" role="region" aria-label="Signing secret">
      <p>
        Signing secret of {name}: copy it now, it is not shown again. Receivers check <code>X-Levelrail-Signature</code> against it.
      </p>
      <code className="mono" data-testid="channel-secret">
        {secret}
      </code>
    </div>
  );
}
