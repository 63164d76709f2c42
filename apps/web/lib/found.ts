import "server-only";
import { notFound } from "next/navigation";
import { LevelrailError } from "@levelrail/spec/errors";

/** A verb's answer for a page; its 404 (unknown, or another organization's) renders the not-found page. */
export async function orNotFound<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof LevelrailError && err.code === "not_found") notFound();
    throw err;
  }
}
