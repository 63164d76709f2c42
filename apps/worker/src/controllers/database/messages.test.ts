import { describe, expect, it } from "vitest";
import { readyMessage } from "./messages";

describe("readyMessage", () => {
  it.each([
    [0, "accepting connections as shopdb:5432; no service attaches it yet"],
    [1, "accepting connections as shopdb:5432 for the services of 1 app that attach it"],
    [3, "accepting connections as shopdb:5432 for the services of 3 apps that attach it"],
  ])("%i attaching apps", (apps, text) => {
    expect(readyMessage("shopdb", 5432, apps)).toBe(text);
  });
});
