import { DEFAULT_PRICES } from "./pricing_data.ts";
import type { Usage } from "./usage.ts";

/**
 * What a model costs, in USD per million tokens.
 *
 * @example Claude Sonnet 4.5
 * ```ts
 * import type { Price } from "@panto/lib";
 * const price: Price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
 * console.assert(price.output === 15);
 * ```
 */
export interface Price {
  /** Uncached input tokens. */
  input: number;
  /** Output tokens, reasoning included. */
  output: number;
  /** Input tokens served from the prompt cache. Defaults to `input` when unset. */
  cacheRead?: number;
  /** Input tokens written to the prompt cache. Defaults to `input` when unset. */
  cacheWrite?: number;
}

const TOKENS_PER_UNIT = 1_000_000;

/**
 * Turns a {@linkcode Usage} into dollars for one model.
 *
 * `Usage` is normalised (`inputTokens` excludes cached tokens, `outputTokens`
 * includes reasoning), so one formula serves every API:
 * `input·in + cacheRead·read + cacheWrite·write + output·out`.
 *
 * A missing `cacheRead` or `cacheWrite` price falls back to the `input`
 * price: a server that does not say what cached tokens cost is billed as if
 * they were ordinary input, which never hides tokens from the total.
 *
 * @example Cost of one Anthropic response
 * ```ts
 * import { emptyUsage, Pricing } from "@panto/lib";
 * const pricing = new Pricing({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
 * const usage = { ...emptyUsage(), inputTokens: 1_000_000, outputTokens: 100_000 };
 * console.assert(Math.abs(pricing.cost(usage) - 4.5) < 1e-9);
 * ```
 */
export class Pricing {
  /** The rates in use, with the cache fallbacks filled in. */
  readonly price: Readonly<Required<Price>>;

  /**
   * Creates a pricing from per-million-token rates.
   *
   * @param price USD per million tokens; every rate must be a finite number ≥ 0.
   * @throws {RangeError} When a rate is negative, infinite or not a number.
   */
  constructor(price: Price) {
    this.price = Object.freeze({
      input: checkedRate("input", price.input),
      output: checkedRate("output", price.output),
      cacheRead: checkedRate("cacheRead", price.cacheRead ?? price.input),
      cacheWrite: checkedRate("cacheWrite", price.cacheWrite ?? price.input),
    });
  }

  /**
   * The cost of a usage record.
   *
   * @param usage Normalised token counts for one or more responses.
   * @returns The cost in USD.
   */
  cost(usage: Usage): number {
    const { input, output, cacheRead, cacheWrite } = this.price;
    return (usage.inputTokens * input +
      usage.cacheReadTokens * cacheRead +
      usage.cacheWriteTokens * cacheWrite +
      usage.outputTokens * output) / TOKENS_PER_UNIT;
  }
}

function checkedRate(name: keyof Price, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `Price ${name} must be a finite number of USD per million tokens, at least 0; got ${
        String(value)
      }`,
    );
  }
  return value;
}

// A snapshot suffix the vendors append to a model family's name: a date
// (`-20250929`, `-2025-04-14`, Vertex's `@20250929`) or `-latest`.
const SNAPSHOT_SUFFIX = /(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$/;

/**
 * Prices of known models, seeded with the vendors' list prices and
 * overridable (the CLI calls {@linkcode PricingRegistry.set} for prices in
 * its config).
 *
 * Matching rule, case-insensitive: the exact model name first; otherwise the
 * name with one snapshot suffix removed — a date (`-YYYYMMDD`,
 * `-YYYY-MM-DD`, `@YYYYMMDD`) or `-latest`. So `claude-sonnet-4-5-20250929`
 * finds `claude-sonnet-4-5` and `gpt-4.1-2025-04-14` finds `gpt-4.1`, while
 * a different model that merely shares a prefix (`o3-pro`, `gpt-5-pro`,
 * `claude-opus-4-9`) finds nothing rather than a wrong price. A price set
 * for a dated name applies to that snapshot only.
 *
 * @example Look up a dated snapshot and override a price
 * ```ts
 * import { PricingRegistry } from "@panto/lib";
 * const registry = PricingRegistry.withDefaults();
 * console.assert(registry.get("claude-sonnet-4-5-20250929") !== undefined);
 * registry.set("my-local-model", { input: 0, output: 0 });
 * console.assert(registry.get("my-local-model")?.price.output === 0);
 * console.assert(registry.get("unknown-model") === undefined);
 * ```
 */
export class PricingRegistry {
  #byModel = new Map<string, Pricing>();

  /**
   * A registry seeded with the list prices of common Anthropic and OpenAI
   * models (standard tier, prompts under any long-context threshold,
   * 5-minute cache writes).
   *
   * @returns A new registry; changing it leaves other registries untouched.
   */
  static withDefaults(): PricingRegistry {
    const registry = new PricingRegistry();
    for (const [model, price] of Object.entries(DEFAULT_PRICES)) registry.set(model, price);
    return registry;
  }

  /**
   * Sets (or replaces) the price of a model.
   *
   * @param model The model name as sent to the server.
   * @param price USD per million tokens.
   * @throws {RangeError} When a rate is invalid (see {@linkcode Pricing}).
   */
  set(model: string, price: Price): void {
    this.#byModel.set(model.toLowerCase(), new Pricing(price));
  }

  /**
   * Finds the pricing of a model by the matching rule above.
   *
   * @param model The model name as sent to the server.
   * @returns The pricing, or `undefined` when the model is unknown.
   */
  get(model: string): Pricing | undefined {
    const name = model.toLowerCase();
    return this.#byModel.get(name) ?? this.#byModel.get(name.replace(SNAPSHOT_SUFFIX, ""));
  }
}
