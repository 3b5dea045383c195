/**
 * Token usage reported by a provider for one assistant message.
 *
 * Every count is normalised to one accounting so costs can be computed the
 * same way for every API: `inputTokens` excludes cached tokens (Anthropic's
 * convention; for OpenAI we subtract `cached_tokens` from `prompt_tokens`),
 * and `outputTokens` includes reasoning tokens.
 *
 * @example Build a usage record
 * ```ts
 * import { emptyUsage } from "@panto/lib";
 * const usage = { ...emptyUsage(), inputTokens: 10, outputTokens: 4 };
 * console.assert(usage.cacheReadTokens === 0);
 * ```
 */
export interface Usage {
  /** Input tokens that were neither read from nor written to the prompt cache. */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Input tokens served from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens: number;
  /** The part of `outputTokens` spent on reasoning, when the server says. */
  reasoningTokens: number;
}

/**
 * A usage record with every count at zero.
 *
 * @returns A fresh zeroed {@linkcode Usage}.
 *
 * @example Zero usage
 * ```ts
 * import { emptyUsage } from "@panto/lib";
 * console.assert(emptyUsage().inputTokens === 0);
 * ```
 */
export function emptyUsage(): Usage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/**
 * Adds two usage records field by field (for per-session totals).
 *
 * @param a The first record.
 * @param b The second record.
 * @returns A new record holding the sums.
 *
 * @example Sum two records
 * ```ts
 * import { addUsage, emptyUsage } from "@panto/lib";
 * const total = addUsage({ ...emptyUsage(), inputTokens: 1 }, { ...emptyUsage(), inputTokens: 2 });
 * console.assert(total.inputTokens === 3);
 * ```
 */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}
