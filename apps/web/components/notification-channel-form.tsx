"use client";
import { type FormEvent, type ReactNode, Suspense, lazy, useState } from "react";
import type { NotificationEvent } from "@levelrail/spec/lists";
import { keys } from "@/lib/keys";
import type { NotificationChannelItem } from "@/lib/types";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { Alert } from "./alert";
import { useAddForm } from "./use-add-form";

/** An email channel's fields, in their own chunk: they show once the kind "Email (SMTP)" is chosen. */
const EmailChannelFields = lazy(() => import("./email-channel-fields").then((m) => ({ default: m.EmailChannelFields })));

/** A new webhook's signing secret, shown once, in its own chunk: it shows after a channel is added. */
const ChannelSecret = lazy(() => import("./channel-secret").then((m) => ({ default: m.ChannelSecret })));

type Kind = "webhook" | "email";
const BLANK = { name: "", url: "", format: "json", host: "", port: "587", username: "", password: "", from: "", to: "" };
export type ChannelValue = keyof typeof BLANK;
/** One text field of the form: its value, its error and its change handler (the form's `text`). */
export type ChannelText = (name: ChannelValue, label: string, o?: { placeholder?: string; type?: string; hint?: string }) => ReactNode;

/** The form's values as the API's input (the same schema checks both). */
function inputOf(kind: Kind, v: typeof BLANK, events: NotificationEvent[], flags: { secure: boolean }) {
  if (kind === "webhook") return { kind, name: v.name, events, url: v.url.trim(), format: v.format };
  const port = Number(v.port);
  return {
    kind,
    name: v.name,
    events,
    host: v.host.trim(),
    port: v.port.trim() === "" || Number.isNaN(port) ? v.port : port,
    secure: flags.secure,
    ...(v.username ? { username: v.username } : {}),
    ...(v.password ? { password: v.password } : {}),
    from: v.from.trim(),
    to: v.to
      .split(/[,\s]+/)
      .map((t) => t.trim())
      .filter(Boolean),
  };
}

/**
 * Adds a webhook or email channel; a webhook's signing secret is shown here once, after it is created.
 * `eventLabels`: every event with its label, in NOTIFICATION_EVENTS' order (from the server page).
 */
export function NotificationChannelForm({ eventLabels }: { eventLabels: Record<NotificationEvent, string> }) {
  const [kind, setKind] = useState<Kind>("webhook");
  const [values, setValues] = useState(BLANK);
  const [events, setEvents] = useState<NotificationEvent[]>(["deploy.failed"]);
  const [secure, setSecure] = useState(false);
  const [created, setCreated] = useState<{ name: string; secret: string | undefined } | null>(null);
  const { errors, send, pending } = useAddForm<NotificationChannelItem & { secret?: string }>({
    path: "/notification-channels",
    queryKey: keys.notificationChannels(),
    failed: "could not add the channel",
    onAdded: (item) => {
      setValues(BLANK);
      setCreated({ name: item.name, secret: item.secret });
    },
    onFailed: () => setValues((v) => ({ ...v, password: "" })),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    void send(inputOf(kind, values, events, { secure }), async () => (await import("@levelrail/spec/notifications")).notificationChannelInput);
  }

  const text: ChannelText = (name, label, o = {}) => (
    <Field id={`channel-${name}`} label={label} error={errors[name]} {...(o.hint ? { hint: o.hint } : {})}>
      {(a11y) => (
        <input
          {...a11y}
          name={name}
          type={o.type ?? "text"}
          value={values[name]}
          onChange={(e) => setValues((v) => ({ ...v, [name]: e.target.value }))}
          placeholder={o.placeholder}
          autoComplete={o.type === "password" ? "new-password" : "off"}
          spellCheck={false}
        />
      )}
    </Field>
  );

  return (
    <form className="stack" onSubmit={submit} aria-labelledby="channel-form-title" noValidate>
      <h3 id="channel-form-title">New channel</h3>
      <div className="row">
        <Field id="channel-kind" label="Kind" error={errors.kind}>
          {(a11y) => (
            <select {...a11y} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
              <option value="webhook">Webhook</option>
              <option value="email">Email (SMTP)</option>
            </select>
          )}
        </Field>
        {text("name", "Name", { placeholder: "ops alerts" })}
      </div>
      {kind === "webhook" ? (
        <div className="row">
          {text("url", "URL", { placeholder: "https://hooks.example.com/levelrail" })}
          <Field id="channel-format" label="Format" error={errors.format}>
            {(a11y) => (
              <select {...a11y} value={values.format} onChange={(e) => setValues((v) => ({ ...v, format: e.target.value }))}>
                <option value="json">JSON</option>
                <option value="slack">Slack-compatible</option>
              </select>
            )}
          </Field>
        </div>
      ) : (
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <EmailChannelFields text={text} secure={secure} onSecure={setSecure} />
        </Suspense>
      )}
      <fieldset>
        <legend>Events</legend>
        {(Object.keys(eventLabels) as NotificationEvent[]).map((ev) => (
          <label key={ev} className="inline">
            <input
              type="checkbox"
              checked={events.includes(ev)}
              onChange={(e) => setEvents((cur) => (e.target.checked ? [...cur, ev] : cur.filter((x) => x !== ev)))}
            />{" "}
            {eventLabels[ev]}
          </label>
        ))}
        {errors.events && (
          <Alert inline>
            {errors.events}
          </Alert>
        )}
      </fieldset>
      <FormMessages error={errors.form} done={created ? `Added channel ${created.name}` : null} />
      {created?.secret && (
        <Suspense fallback={null}>
          <ChannelSecret name={created.name} secret={created.secret} />
        </Suspense>
      )}
      <div className="buttons">
        <button type="submit" disabled={pending}>
          Add channel
        </button>
      </div>
    </form>
  );
}
