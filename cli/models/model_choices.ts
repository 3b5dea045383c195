import type { PantoConfig } from "../config/panto_config.ts";
import { usableCatalogProviders, usableModels } from "./usable_models.ts";

/**
 * What ctrl+p cycles through, in order: the `--models` patterns if given,
 * else the config's `cycleModels`, else every configured alias, else the
 * catalog's default models of each provider whose key is set. A pattern is
 * an alias, a `provider/model`, or a glob over them (`anthropic/*`,
 * `*sonnet*`; a pattern without `/` is matched against the model's id too),
 * any case; the usable catalog models it matches come in catalog order.
 *
 * @param config The loaded configuration (catalog models of usable providers loaded).
 * @param patterns `--models` patterns, if given.
 * @param env Environment lookup (whose keys are set).
 * @returns Aliases and `provider/model` specs, without duplicates.
 *
 * @example
 * ```ts
 * import { cycleChoices } from "./model_choices.ts";
 * const config = { models: { fast: { provider: "x", model: "m", source: "" } }, providers: {} };
 * console.assert(cycleChoices(config).join() === "fast");
 * ```
 */
export function cycleChoices(
  config: Pick<PantoConfig, "models" | "providers" | "cycleModels">,
  patterns?: readonly string[],
  env?: (name: string) => string | undefined,
): string[] {
  const chosen = patterns?.length ? patterns : config.cycleModels;
  if (chosen?.length) return [...new Set(chosen.flatMap((p) => expand(config, p, env)))];
  const aliases = Object.keys(config.models);
  if (aliases.length) return aliases;
  return usableCatalogProviders(config, env).flatMap((provider) =>
    provider.defaults.map((id) => `${provider.id}/${id}`)
  );
}

/** An alias or spec as itself; a glob as the aliases and usable catalog models it matches. */
function expand(
  config: Pick<PantoConfig, "models" | "providers">,
  pattern: string,
  env?: (name: string) => string | undefined,
): string[] {
  if (!pattern.includes("*")) return [pattern];
  const regex = new RegExp(
    `^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join(".*")}$`,
    "i",
  );
  const byId = !pattern.includes("/");
  const aliases = Object.keys(config.models).filter((alias) => regex.test(alias));
  const models = usableModels(config, env)
    .filter(({ spec, model }) => regex.test(spec) || (byId && regex.test(model.id)))
    .map(({ spec }) => spec);
  return [...aliases, ...models];
}

/** One entry of the model picker. */
export interface PickerModel {
  /** What `setModel` takes: an alias or `provider/model`. */
  value: string;
  /** The line shown. */
  label: string;
  /** Dimmed text after it (also matched by the filter). */
  description: string;
}

/**
 * What `/model` offers: the configured aliases, then every catalog model of
 * each provider whose key is set (the ones an alias already names are left
 * out), with the provider, name and context window shown.
 *
 * @param config The loaded configuration (catalog models of usable providers loaded).
 * @param env Environment lookup (whose keys are set).
 * @returns The entries, aliases first.
 *
 * @example
 * ```ts
 * import { pickerModels } from "./model_choices.ts";
 * const config = { models: { fast: { provider: "x", model: "m", source: "" } }, providers: {} };
 * console.assert(pickerModels(config)[0]?.value === "fast");
 * ```
 */
export function pickerModels(
  config: Pick<PantoConfig, "models" | "providers">,
  env?: (name: string) => string | undefined,
): PickerModel[] {
  const aliases = Object.entries(config.models).map(([alias, settings]) => ({
    value: alias,
    label: alias,
    description: `${settings.provider}/${settings.model}`,
  }));
  const named = new Set(aliases.map((a) => a.description));
  const models = usableModels(config, env).filter(({ spec }) => !named.has(spec)).map((
    { spec, model },
  ) => ({
    value: spec,
    label: spec,
    description: `${model.name} · ${Math.round(model.contextWindow / 1000)}k context`,
  }));
  return [...aliases, ...models];
}
