import { LevelrailError } from "@levelrail/spec/errors";

/** The LevelrailError `run` throws; fails the test if it throws something else or nothing. */
export async function refusal(run: () => Promise<unknown>): Promise<LevelrailError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof LevelrailError) return err;
    throw err;
  }
  throw new Error("expected a LevelrailError, but the call succeeded");
}

/** What a refusal looks like from outside (the HTTP error body is built from exactly these). */
export async function refusalBody(run: () => Promise<unknown>): Promise<{ code: string; message: string; field: string | undefined }> {
  const err = await refusal(run);
  return { code: err.code, message: err.message, field: err.field };
}
