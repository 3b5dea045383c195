import {
  addUsage,
  emptyUsage,
  type Message,
  Pricing,
  type PricingRegistry,
  type Usage,
} from "@panto/lib";
import type { ModelSelection } from "../config/model_registry.ts";
import type { PantoConfig } from "../config/panto_config.ts";

/** Tokens spent, and on which model (a message, or a summary's request). */
export type Spend = Pick<Message, "usage" | "api" | "model">;

/** Where prices come from: the model in use, the config's aliases, the known models. */
export interface PriceSources {
  /** The model in use (a message naming no model was answered by it). */
  selection: ModelSelection;
  /** The configured aliases and their prices. */
  config: PantoConfig;
  /** The prices panto knows. */
  defaults: PricingRegistry;
}

/**
 * The tokens of everything spent.
 *
 * @param spent Messages and summaries' requests.
 * @returns Their usage added up.
 */
export function totalUsage(spent: readonly Spend[]): Usage {
  return spent.reduce(
    (total, item) => item.usage ? addUsage(total, item.usage) : total,
    emptyUsage(),
  );
}

/**
 * What the messages cost, each priced at the model that produced it (a
 * message that does not name one: the model in use); `undefined` when
 * neither the model in use nor any message's model has a known price.
 *
 * @param spent Messages and summaries' requests.
 * @param prices Where prices come from.
 * @returns The cost in dollars, if any price is known.
 */
export function totalCost(spent: readonly Spend[], prices: PriceSources): number | undefined {
  const model = prices.selection.provider.model;
  let total = pricing(prices, model) ? 0 : undefined;
  for (const message of spent) {
    if (!message.usage) continue;
    const price = pricing(prices, message.model ?? model, message.api);
    if (price) total = (total ?? 0) + price.cost(message.usage);
  }
  return total;
}

/**
 * A model's price: the selection's (its catalog entry's, or its alias's),
 * else a configured alias's, else a known one. A message records the API
 * that answered it, so a model of the same name behind another API (an
 * alias of another provider) is not charged at this one's rate.
 */
function pricing(prices: PriceSources, model: string, api?: string): Pricing | undefined {
  const { selection, config } = prices;
  const sameApi = (other: string | undefined) => api === undefined || other === api;
  if (selection.provider.model === model && sameApi(selection.provider.api) && selection.pricing) {
    return new Pricing(selection.pricing);
  }
  const configured = Object.values(config.models).find((m) =>
    m.model === model && m.price && sameApi(config.providers[m.provider]?.api)
  );
  return configured?.price ? new Pricing(configured.price) : prices.defaults.get(model);
}
