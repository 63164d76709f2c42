/** Thrown by a controller when retrying cannot help; the runner records it and stops. */
export class TerminalError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = "TerminalError";
  }
}
