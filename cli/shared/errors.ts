/**
 * An error that ends the program with a given exit code and a message for
 * the user (no stack trace).
 *
 * @example
 * ```ts
 * import { CliError } from "./errors.ts";
 * console.assert(new CliError("bad", 2).exitCode === 2);
 * ```
 */
export class CliError extends Error {
  /** The process exit code: 1 runtime error, 2 usage error. */
  readonly exitCode: number;

  /**
   * Creates the error.
   *
   * @param message What failed and how to fix it.
   * @param exitCode The exit code (default 1).
   */
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/**
 * A mistake in how panto was invoked (flags, config): exit code 2.
 *
 * @example
 * ```ts
 * import { UsageError } from "./errors.ts";
 * console.assert(new UsageError("--model is required").exitCode === 2);
 * ```
 */
export class UsageError extends CliError {
  /**
   * Creates the error.
   *
   * @param message What was wrong and how to fix it.
   */
  constructor(message: string) {
    super(message, 2);
    this.name = "UsageError";
  }
}
