import type { PantoConfig } from "../config/panto_config.ts";
import { hasCredentials } from "../config/provider_credentials.ts";
import { optionalEnv } from "../shared/env.ts";
import { cachedCatalogModels, catalogProviders } from "./catalog.ts";
import type { CatalogModel, CatalogProvider } from "./catalog_types.ts";

/**
 * The catalog providers that list models and can be used now: their key
 * variable (as the config names it, which may differ from the catalog's)
 * is set.
 *
 * @param config The loaded configuration.
 * @param env Environment lookup (default: panto's, never throwing).
 * @returns The providers, in catalog order.
 *
 * @example
 * ```ts
 * import { usableCatalogProviders } from "./usable_models.ts";
 * const config = { providers: { anthropic: { api: "anthropic-messages" as const, baseUrl: "", apiKeyEnv: "K" } } };
 * const ids = usableCatalogProviders(config, (n) => n === "K" ? "sk" : undefined).map((p) => p.id);
 * console.assert(ids.join() === "anthropic");
 * ```
 */
export function usableCatalogProviders(
  config: Pick<PantoConfig, "providers">,
  env: (name: string) => string | undefined = optionalEnv,
): CatalogProvider[] {
  return catalogProviders().filter((provider) => {
    const settings = config.providers[provider.id];
    if (!settings || provider.modelCount === 0) return false;
    return settings.apiKeyEnv !== undefined && hasCredentials(settings, env);
  });
}

/**
 * The providers a model spec and the config's own choices name (an alias's,
 * `provider/model`'s, the default model's, `cycleModels`'): whose catalog
 * models resolving them needs.
 *
 * @param config The loaded configuration.
 * @param spec The `-m` value, if any.
 * @returns Provider names.
 *
 * @example
 * ```ts
 * import { modelProviders } from "./usable_models.ts";
 * const config = { models: { fast: { provider: "groq", model: "m", source: "" } }, defaultModel: "fast" };
 * console.assert(modelProviders(config, "openai/gpt-5").join() === "openai,groq");
 * ```
 */
export function modelProviders(
  config: Pick<PantoConfig, "models" | "defaultModel" | "cycleModels">,
  spec: string | undefined,
): string[] {
  const specs = [spec, config.defaultModel, ...config.cycleModels ?? []];
  const names = specs.flatMap((s) => {
    if (!s) return [];
    if (Object.hasOwn(config.models, s)) return [config.models[s]!.provider];
    const slash = s.indexOf("/");
    return slash > 0 ? [s.slice(0, slash)] : [];
  });
  return [...new Set(names)];
}

/** A catalog model that can be used now, with its provider. */
export interface UsableModel {
  /** `provider/model`. */
  spec: string;
  /** The provider. */
  provider: CatalogProvider;
  /** The model. */
  model: CatalogModel;
}

/**
 * Every loaded catalog model of the usable providers (load them first with
 * `loadCatalogModels`).
 *
 * @param config The loaded configuration.
 * @param env Environment lookup.
 * @returns The models, provider by provider.
 *
 * @example
 * ```ts
 * import { usableModels } from "./usable_models.ts";
 * console.assert(usableModels({ providers: {} }).length === 0);
 * ```
 */
export function usableModels(
  config: Pick<PantoConfig, "providers">,
  env: (name: string) => string | undefined = optionalEnv,
): UsableModel[] {
  return usableCatalogProviders(config, env).flatMap((provider) =>
    (cachedCatalogModels(provider.id) ?? []).map((model) => ({
      spec: `${provider.id}/${model.id}`,
      provider,
      model,
    }))
  );
}
