"use client";
import type { ChannelText } from "./notification-channel-form";

/** An email channel's SMTP fields (NotificationChannelForm, once "Email (SMTP)" is chosen); `text` is the form's own field. */
export function EmailChannelFields({ text, secure, onSecure }: { text: ChannelText; secure: boolean; onSecure: (secure: boolean) => void }) {
  return (
    <div className="row">
      {text("host", "SMTP host", { placeholder: "smtp.example.com" })}
      {text("port", "Port")}
      <label className="inline">
        <input type="checkbox" checked={secure} onChange={(e) => onSecure(e.target.checked)} /> TLS from the start (port 465)
      </label>
      {text("username", "Username")}
      {text("password", "Password", { type: "password" })}
      {text("from", "From", { placeholder: "levelrail@example.com" })}
      {text("to", "To", { placeholder: "ops@example.com, oncall@example.com", hint: "Comma-separated addresses." })}
    </div>
  );
}
