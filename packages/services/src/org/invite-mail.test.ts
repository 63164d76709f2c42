import { describe, expect, it } from "vitest";
import { smtpSettings } from "./invite-mail";

describe("LEVELRAIL_SMTP_URL", () => {
  it("reads host, port, TLS, login and sender; the defaults are 587 with STARTTLS, 465 with smtps, levelrail@<panel host>", () => {
    expect(smtpSettings("smtp://mail.example.com", "panel.example.com")).toEqual({
      host: "mail.example.com",
      port: 587,
      secure: false,
      from: "levelrail@panel.example.com",
      user: "",
      password: "",
    });
    expect(smtpSettings("smtps://me%40x.com:p%3Ass%20w@[::1]:2465?from=Ops%20%3Cops%40x.com%3E", "p")).toEqual({
      host: "::1",
      port: 2465,
      secure: true,
      from: "Ops <ops@x.com>",
      user: "me@x.com",
      password: "p:ss w",
    });
    expect(smtpSettings("smtps://mail.example.com", "p").port).toBe(465);
  });

  it("refuses another scheme", () => {
    expect(() => smtpSettings("http://mail.example.com", "p")).toThrow("must start with smtp:// or smtps://");
  });
});
