// List prices seeded into `PricingRegistry.withDefaults()`, USD per million tokens.
//
// Sources, read on 2026-11-29 (stored copies of the pages):
// - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing ("Model
//   pricing" table: base input, 5m cache writes, cache hits, output).
// - OpenAI: https://developers.openai.com/api/docs/pricing (Standard tier), as
//   mirrored by github/docs `data/tables/copilot/models-and-pricing.yml` and
//   simonw/llm-prices `data/openai.json`; cross-checked against pi-mono
//   `models.generated.ts` and litellm `model_prices_and_context_window.json`
//   (see /work/shared/reference/provider-protocols.md §6).
//
// Not modelled: batch and priority tiers, 1-hour cache writes (2× input on
// Anthropic; we price every write at the 5-minute rate), and long-context
// tiers (Claude Sonnet 4/4.5 above 200K input tokens, GPT-5.4/5.5 above 272K
// cost more). OpenAI has no cache-write charge and never reports cache-write
// tokens, so its entries leave `cacheWrite` unset.
import type { Price } from "./pricing.ts";

const OPUS_4_5_AND_LATER: Price = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };
const OPUS_4_0_AND_4_1: Price = { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 };
const SONNET_4: Price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT_5_AND_5_1: Price = { input: 1.25, output: 10, cacheRead: 0.125 };

/** Known models by family name (dated snapshots are matched by the registry). */
export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  // Anthropic
  "claude-opus-4-8": OPUS_4_5_AND_LATER,
  "claude-opus-4-7": OPUS_4_5_AND_LATER,
  "claude-opus-4-6": OPUS_4_5_AND_LATER,
  "claude-opus-4-5": OPUS_4_5_AND_LATER,
  "claude-opus-4-1": OPUS_4_0_AND_4_1,
  "claude-opus-4-0": OPUS_4_0_AND_4_1,
  // Claude Opus 4's snapshot is `claude-opus-4-20250514` (no `-0`).
  "claude-opus-4": OPUS_4_0_AND_4_1,
  "claude-sonnet-4-6": SONNET_4,
  "claude-sonnet-4-5": SONNET_4,
  "claude-sonnet-4-0": SONNET_4,
  "claude-sonnet-4": SONNET_4,
  "claude-3-7-sonnet": SONNET_4,
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },

  // OpenAI
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  // The first GPT-4o snapshot kept its launch price and has no cache discount.
  "gpt-4o-2024-05-13": { input: 5, output: 15 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "o3": { input: 2, output: 8, cacheRead: 0.5 },
  "o3-mini": { input: 1.1, output: 4.4, cacheRead: 0.55 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
  "gpt-5": GPT_5_AND_5_1,
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "gpt-5.1": GPT_5_AND_5_1,
  "gpt-5.2": { input: 1.75, output: 14, cacheRead: 0.175 },
  "gpt-5.4": { input: 2.5, output: 15, cacheRead: 0.25 },
  "gpt-5.4-mini": { input: 0.75, output: 4.5, cacheRead: 0.075 },
  "gpt-5.4-nano": { input: 0.2, output: 1.25, cacheRead: 0.02 },
  "gpt-5.5": { input: 5, output: 30, cacheRead: 0.5 },
};
