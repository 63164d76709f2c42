import { describe, expect, it } from "vitest";
import { smtpFailure } from "./email";

const err = (code: string | undefined, responseCode: number | undefined, message: string) => Object.assign(new Error(message), { code, responseCode, response: message });

describe("smtpFailure: our classification, never the server's text", () => {
  it.each([
    [err("EAUTH", 535, "Invalid login: 535 5.7.8 no such user on mail-7.corp.internal"), "SMTP smtp.example.com:587 refused the login (check the username and password) (SMTP 535)"],
    [err("EPROTOCOL", 554, "Invalid greeting. response=554 redis-internal-7 ready"), "SMTP smtp.example.com:587 answered outside the SMTP protocol (SMTP 554)"],
    [err("EENVELOPE", 550, "Can't send mail - all recipients were rejected: 550 user unknown in relay db-3"), "SMTP smtp.example.com:587 refused the sender or a recipient (SMTP 550)"],
    [err("ETIMEDOUT", undefined, "Greeting never received"), "SMTP smtp.example.com:587 timed out"],
    [err("ECONNECTION", undefined, "connect ECONNREFUSED 93.184.216.34:587"), "SMTP smtp.example.com:587 could not connect"],
    [err("EWEIRD", undefined, "internal text"), "SMTP smtp.example.com:587 failed (EWEIRD)"],
    [err(undefined, undefined, "internal text"), "SMTP smtp.example.com:587 failed"],
  ])("%s", (e, want) => {
    const got = smtpFailure("smtp.example.com", 587, e);
    expect(got).toBe(want);
    expect(got).not.toContain(e.message);
  });
});
