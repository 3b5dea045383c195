import { sanitizeTerminalText } from "@panto/tui/sanitize";
import type { PantoConfig } from "../config/panto_config.ts";
import { cachedCatalogModels, catalogProviders, loadCatalogModels } from "../models/catalog.ts";
import { CATALOG_GENERATED, CATALOG_SOURCE } from "../models/catalog/index.ts";
import type { CatalogModel, CatalogProvider } from "../models/catalog_types.ts";
import { hasCredentials } from "../config/provider_credentials.ts";
import { optionalEnv } from "../shared/env.ts";
import { usableCatalogProviders } from "../models/usable_models.ts";

/** Parsed arguments of `panto models`. */
export interface ModelsArgs {
  /** Words every listed model must contain (in its `provider/model` or name), any case. */
  filter: string | undefined;
  /** Every provider's models, not only those whose key is set. */
  all: boolean;
  /** One JSON array instead of a table. */
  json: boolean;
}

/** One row of `panto models`. */
export interface ModelRow {
  /** `provider/model`, as `-m` takes it. */
  spec: string;
  /** The provider. */
  provider: string;
  /** The model's id. */
  id: string;
  /** Its display name. */
  name: string;
  /** Its wire API. */
  api: string;
  /** Context window in tokens. */
  contextWindow: number;
  /** Most output tokens. */
  maxTokens: number;
  /** What it takes. */
  input: readonly string[];
  /** The reasoning levels it takes. */
  thinkingLevels: readonly string[];
  /** USD per million tokens. */
  price: CatalogModel["price"];
  /** Whether its key is set, so it can be used now. */
  usable: boolean;
  /** The variable its key is read from. */
  keyEnv?: string;
  /** Configured aliases naming it. */
  aliases: string[];
  /**
   * Whether the catalog lists it; a configured model it lacks knows only
   * what its alias says (unknown numbers are 0, unknown input empty).
   */
  inCatalog: boolean;
}

/**
 * `panto models [FILTER] [--all] [--json]` (also `panto --list-models`):
 * the catalog's models of the providers whose key is set (every provider's
 * with `--all`), with context window, output limit, input kinds, thinking
 * levels and prices; the configured aliases are named beside their model.
 *
 * @param config The loaded configuration.
 * @param args The parsed arguments.
 * @param write Where output goes.
 * @param env Environment lookup (whose keys are set).
 * @returns The exit code: 0, or 1 when nothing matched.
 *
 * @example
 * ```ts ignore
 * import { runModelsCommand } from "./models.ts";
 * await runModelsCommand(config, { filter: "sonnet", all: true, json: false }, console.log);
 * ```
 */
export async function runModelsCommand(
  config: Pick<PantoConfig, "providers" | "models">,
  args: ModelsArgs,
  write: (text: string) => void,
  env?: (name: string) => string | undefined,
): Promise<number> {
  const usable = new Set(usableCatalogProviders(config, env).map((p) => p.id));
  const providers = catalogProviders().filter((p) =>
    p.modelCount > 0 && (args.all || usable.has(p.id))
  );
  await loadCatalogModels(providers.map((p) => p.id));
  const words = (args.filter ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const rows = providers.flatMap((provider) =>
    (cachedCatalogModels(provider.id) ?? []).map((model) =>
      row(provider, model, usable.has(provider.id), config)
    )
  );
  rows.push(...configuredRows(config, rows, args.all, env));
  const matching = rows.filter((r) =>
    words.every((word) => `${r.spec} ${r.name} ${r.aliases.join(" ")}`.toLowerCase().includes(word))
  );
  if (args.json) {
    write(JSON.stringify(matching, null, 2) + "\n");
    return matching.length ? 0 : 1;
  }
  write(table(matching, providers.length, usable.size, args));
  return matching.length ? 0 : 1;
}

/** The config's aliases of models the catalog does not list (a local server's, a gateway's). */
function configuredRows(
  config: Pick<PantoConfig, "providers" | "models">,
  listed: readonly ModelRow[],
  all: boolean,
  env: (name: string) => string | undefined = optionalEnv,
): ModelRow[] {
  const specs = new Set(listed.map((r) => r.spec));
  const rows = new Map<string, ModelRow>();
  for (const [alias, settings] of Object.entries(config.models)) {
    const spec = `${settings.provider}/${settings.model}`;
    const provider = config.providers[settings.provider];
    if (specs.has(spec) || !provider) continue;
    const usable = hasCredentials(provider, env);
    if (!all && !usable) continue;
    const existing = rows.get(spec);
    if (existing) {
      existing.aliases.push(alias);
      continue;
    }
    rows.set(spec, {
      spec,
      provider: settings.provider,
      id: settings.model,
      name: alias,
      api: provider.api,
      contextWindow: settings.contextWindow ?? 0,
      maxTokens: settings.maxTokens ?? 0,
      input: [],
      thinkingLevels: [],
      price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...settings.price },
      usable,
      ...(provider.apiKeyEnv ? { keyEnv: provider.apiKeyEnv } : {}),
      aliases: [alias],
      inCatalog: false,
    });
  }
  return [...rows.values()];
}

function row(
  provider: CatalogProvider,
  model: CatalogModel,
  usable: boolean,
  config: Pick<PantoConfig, "models">,
): ModelRow {
  const aliases = Object.entries(config.models)
    .filter(([, m]) => m.provider === provider.id && m.model === model.id)
    .map(([alias]) => alias);
  return {
    spec: `${provider.id}/${model.id}`,
    provider: provider.id,
    id: model.id,
    name: model.name,
    api: model.api ?? provider.api,
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    input: model.input,
    thinkingLevels: model.thinkingLevels,
    price: model.price,
    usable,
    ...(provider.keyEnv ? { keyEnv: provider.keyEnv } : {}),
    aliases,
    inCatalog: true,
  };
}

const HEADERS = ["MODEL", "CONTEXT", "OUTPUT", "INPUT", "THINKING", "$ IN/OUT", "KEY"];

function table(rows: readonly ModelRow[], shown: number, usable: number, args: ModelsArgs): string {
  const lines = rows.map((r) => [
    sanitizeTerminalText(r.spec + (r.aliases.length ? ` (${r.aliases.join(", ")})` : "")),
    tokens(r.contextWindow),
    tokens(r.maxTokens),
    r.input.length === 0 ? "-" : r.input.includes("image") ? "text+image" : "text",
    levels(r.thinkingLevels),
    r.inCatalog || r.price.output > 0 ? `${price(r.price.input)}/${price(r.price.output)}` : "-",
    r.keyEnv === undefined ? "none needed" : r.usable ? "set" : r.keyEnv,
  ]);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: readonly string[]) =>
    cells.map((c, i) => i === cells.length - 1 ? c : c.padEnd(widths[i]!)).join("  ");
  const body = rows.length
    ? [format(HEADERS), ...lines.map(format)].join("\n")
    : args.filter
    ? `No model matches ${JSON.stringify(args.filter)}.`
    : "No models to list.";
  const scope = args.all
    ? `${shown} providers`
    : usable
    ? `the ${usable} provider${usable === 1 ? "" : "s"} whose key is set (--all: every provider's)`
    : "no provider: no key of a known provider is set (--all lists every model, and the variable each reads its key from)";
  return `${body}\n\n${rows.length} models of ${scope}. Prices in USD per million tokens. ` +
    `Catalog of ${CATALOG_GENERATED}, from ${CATALOG_SOURCE}.\n`;
}

function tokens(count: number): string {
  if (count === 0) return "-";
  return count >= 1_000_000
    ? `${+(count / 1_000_000).toFixed(1)}M`
    : `${Math.round(count / 1000)}k`;
}

function levels(list: readonly string[]): string {
  if (list.length <= 1) return "-";
  return list.length === 2 ? list[1]! : `${list[0]}..${list.at(-1)}`;
}

function price(dollars: number): string {
  return dollars === 0 ? "0" : `${+dollars.toFixed(2)}`;
}
