import type { ContentBlock } from "./content.ts";
import type { Usage } from "./usage.ts";
import { errorMessage } from "./error_message.ts";

/**
 * How a provider failure is classified. `rate_limit`, `overloaded`,
 * `server`, `network` and `timeout` are retryable; `permission` (Deno
 * refused the request: no `--allow-net` for the host) is not, as asking
 * again is refused again.
 */
export type ProviderErrorKind =
  | "auth"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "context_overflow"
  | "invalid_request"
  | "network"
  | "permission"
  | "timeout"
  | "stream";

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set([
  "rate_limit",
  "overloaded",
  "server",
  "network",
  "timeout",
]);

/** Options for {@linkcode ProviderError}. */
export interface ProviderErrorOptions {
  /** HTTP status, when the server answered with one. */
  status?: number;
  /** Delay the server asked for (`retry-after`), in ms. */
  retryAfterMs?: number;
  /** The underlying error. */
  cause?: unknown;
  /** What was assembled before the failure. */
  partial?: PartialMessage;
}

/** Blocks and usage assembled before a stream failed. */
export interface PartialMessage {
  /** Blocks received so far (an open tool call's input may be incomplete). */
  content: ContentBlock[];
  /** The last usage the server reported. */
  usage: Usage;
}

/**
 * A provider request failed. The message names the server and what it said,
 * never the key.
 *
 * @example Classify a failure
 * ```ts
 * import { ProviderError } from "@panto/lib";
 * const error = new ProviderError("rate_limit", "429 from api.example.com: slow down", { status: 429 });
 * console.assert(error.retryable);
 * ```
 */
export class ProviderError extends Error {
  /** The classification. */
  readonly kind: ProviderErrorKind;
  /** HTTP status, when there was one. */
  readonly status: number | undefined;
  /** Delay the server asked for, in ms. */
  readonly retryAfterMs: number | undefined;
  /** What was assembled before the failure, when streaming had begun. */
  partial: PartialMessage | undefined;

  /**
   * Creates a provider error.
   *
   * @param kind The classification.
   * @param message What failed, for people.
   * @param options Status, retry-after and cause.
   */
  constructor(kind: ProviderErrorKind, message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProviderError";
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.partial = options.partial;
  }

  /** Whether waiting and trying again may succeed. */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/**
 * A tool could not be registered (bad or duplicate name).
 *
 * @example
 * ```ts
 * import { ToolRegistrationError } from "@panto/lib";
 * console.assert(new ToolRegistrationError("x").name === "ToolRegistrationError");
 * ```
 */
export class ToolRegistrationError extends Error {
  /**
   * Creates the error.
   *
   * @param message What was wrong with which name.
   */
  constructor(message: string) {
    super(message);
    this.name = "ToolRegistrationError";
  }
}

/**
 * A tool source could not list its tools; the run that asked fails with it.
 * The source is asked again at the next run.
 *
 * @example
 * ```ts
 * import { ToolSourceError } from "@panto/lib";
 * const error = new ToolSourceError("mcp", new Error("connection refused"));
 * console.assert(error.message === 'Tool source "mcp" failed to list its tools: connection refused');
 * ```
 */
export class ToolSourceError extends Error {
  /** The source's name. */
  readonly source: string;

  /**
   * Creates the error.
   *
   * @param source The source's name.
   * @param cause What its `tools()` threw.
   */
  constructor(source: string, cause: unknown) {
    super(
      `Tool source ${JSON.stringify(source)} failed to list its tools: ${errorMessage(cause)}`,
      { cause },
    );
    this.name = "ToolSourceError";
    this.source = source;
  }
}
