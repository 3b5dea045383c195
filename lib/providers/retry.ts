/**
 * When to try a failed provider request again, and how long to wait.
 *
 * @module
 */
import type { RetryConfig } from "../config.ts";
import type { ProviderError } from "../errors.ts";
import { toAbortError } from "./http.ts";

/**
 * Attempts after the first when the config does not say.
 *
 * @example
 * ```ts
 * import { type Config, DEFAULT_MAX_RETRIES } from "@panto/lib";
 * const retries = (config: Config) => config.retry?.maxRetries ?? DEFAULT_MAX_RETRIES;
 * const provider = { api: "openai-chat", baseUrl: "http://127.0.0.1:9", model: "m", reasoning: "off" } as const;
 * console.assert(retries({ provider }) === 4);
 * ```
 */
export const DEFAULT_MAX_RETRIES = 4;
/** First backoff delay (ms) when the config does not say. */
export const DEFAULT_BASE_DELAY_MS = 1000;
/** Longest wait (ms) when the config does not say. */
export const DEFAULT_MAX_DELAY_MS = 60_000;

/** Backoff delays vary by ±this fraction so that many clients do not retry in step. */
const JITTER = 0.2;

/**
 * How long to wait before retry number `attempt`, or `null` to give up.
 *
 * Gives up when the error is not retryable, when `attempt` exceeds
 * `maxRetries` (default 4), or when the server's `retry-after` exceeds
 * `maxDelayMs` (default 60 s): failing with a clear error beats sleeping for
 * an hour. Otherwise honours `retry-after` exactly, or backs off
 * exponentially from `baseDelayMs` (default 1 s, doubling) with ±20 %
 * jitter, capped at `maxDelayMs`.
 *
 * @param attempt Which retry this would be, from 1.
 * @param config The retry policy (defaults apply to unset fields).
 * @param error The failure.
 * @param random Source of jitter in [0, 1); tests pass a fixed one.
 * @returns Milliseconds to wait, or null for no retry.
 *
 * @example
 * ```ts
 * import { ProviderError } from "../errors.ts";
 * import { retryDelayMs } from "./retry.ts";
 * const overloaded = new ProviderError("overloaded", "busy");
 * console.assert(retryDelayMs(1, { baseDelayMs: 100 }, overloaded, () => 0.5) === 100);
 * console.assert(retryDelayMs(2, { baseDelayMs: 100 }, overloaded, () => 0.5) === 200);
 * console.assert(retryDelayMs(1, {}, new ProviderError("auth", "bad key")) === null);
 * ```
 */
export function retryDelayMs(
  attempt: number,
  config: RetryConfig | undefined,
  error: ProviderError,
  random: () => number = Math.random,
): number | null {
  const maxRetries = config?.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxDelayMs = config?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  if (!error.retryable || attempt < 1 || attempt > maxRetries) return null;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs > maxDelayMs ? null : error.retryAfterMs;
  }
  const base = (config?.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** (attempt - 1);
  const jittered = base * (1 + JITTER * (2 * random() - 1));
  return Math.round(Math.min(jittered, maxDelayMs));
}

/**
 * Waits `ms`, or rejects with an abort error as soon as `signal` aborts
 * (at once if it already has). The timer is always cleared.
 *
 * @param ms How long to wait.
 * @param signal Cancels the wait.
 * @returns A promise that resolves after the delay.
 *
 * @example
 * ```ts
 * import { sleep } from "./retry.ts";
 * await sleep(1, new AbortController().signal);
 * ```
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(toAbortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(toAbortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
