import type { Config } from "@panto/lib";
import type { ModelSelection } from "./model_registry.ts";
import type { PantoConfig } from "./panto_config.ts";

/**
 * The library {@linkcode Config} for a selected model: its provider and idle
 * timeout plus the configured retry, compaction and tool concurrency settings.
 *
 * @param config The loaded configuration.
 * @param selection The model from `resolveModel`.
 * @param maxTurns `--max-turns`, when given.
 * @returns The agent configuration.
 *
 * @example
 * ```ts
 * import { agentConfig } from "./agent_config.ts";
 * import { loadConfig } from "./load_config.ts";
 * const dir = await Deno.makeTempDir();
 * const config = await loadConfig({ pantoHome: dir, cwd: dir, env: () => undefined });
 * const provider = { api: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "qwen", reasoning: "off" } as const;
 * console.assert(agentConfig(config, { alias: "qwen", provider }, 5).maxTurns === 5);
 * await Deno.remove(dir);
 * ```
 */
export function agentConfig(
  config: PantoConfig,
  selection: ModelSelection,
  maxTurns?: number,
): Config {
  const out: Config = {
    provider: selection.provider,
    retry: { ...config.retry },
    compaction: { ...config.compaction },
    parallelTools: config.parallelTools,
  };
  if (maxTurns !== undefined) out.maxTurns = maxTurns;
  if (selection.idleTimeoutMs !== undefined) out.idleTimeoutMs = selection.idleTimeoutMs;
  return out;
}
