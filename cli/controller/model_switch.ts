import type { ReasoningLevel } from "@panto/lib";
import { type ModelSelection, resolveModel } from "../config/model_registry.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import { cycleChoices } from "../models/model_choices.ts";
import type { ChatArgs } from "../setup/args.ts";
import { UsageError } from "../shared/errors.ts";

/** What a model is chosen from: the config, the command line, the first model's name. */
export interface ModelSource {
  config: PantoConfig;
  args: ChatArgs;
  /** The first model's name: the one --api/--base-url describe, when they were given. */
  adHocAlias: string;
}

/**
 * The model an alias names, at a reasoning level.
 *
 * @param source The config and the command line.
 * @param alias A configured alias or `provider/model`.
 * @param reasoning The level (default: the alias's configured one, else
 *   the `--thinking` flag's, else off).
 * @returns The selection.
 * @throws {UsageError} For an unknown model or a missing key.
 */
export function selectModel(
  source: ModelSource,
  alias: string,
  reasoning?: ReasoningLevel,
): ModelSelection {
  const { config, args } = source;
  const configured = Object.hasOwn(config.models, alias)
    ? config.models[alias]!.reasoning
    : undefined;
  const thinking = reasoning ?? configured ?? args.thinking;
  const { api, baseUrl, apiKeyEnv } = args;
  // The model given with --api/--base-url is not in the config: it keeps its flags.
  const adHoc = (api !== undefined || baseUrl !== undefined) && alias === source.adHocAlias;
  return resolveModel(config, alias, adHoc ? { api, baseUrl, apiKeyEnv, thinking } : { thinking });
}

/**
 * The next (or previous) alias of the config's `cycleModels` (default:
 * every alias, in config order) after the one in use.
 *
 * @param source The config and the command line (`--models`).
 * @param current The alias in use (the first or last is next when it is not in the cycle).
 * @param direction 1 for the next, -1 for the previous.
 * @returns The alias.
 * @throws {UsageError} When the config has no models.
 */
export function cycledAlias(source: ModelSource, current: string, direction: 1 | -1): string {
  const choices = cycleChoices(source.config, source.args.models);
  if (choices.length === 0) {
    throw new UsageError(
      'No models to cycle through: set a provider\'s key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …: panto models --all lists them), or add models under "models" in config.json',
    );
  }
  const at = choices.indexOf(current);
  const next = at < 0
    ? (direction === 1 ? 0 : choices.length - 1)
    : (at + direction + choices.length) % choices.length;
  return choices[next]!;
}
