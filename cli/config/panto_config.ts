import type { McpServerSettings } from "@panto/lib/mcp";
import type {
  ApiStyle,
  CompactionConfig,
  OpenAICompat,
  ReasoningLevel,
  RetryConfig,
} from "@panto/lib";

/** Prices in US dollars per million tokens. */
export interface ModelPricing {
  /** Uncached input tokens. */
  input: number;
  /** Output tokens (reasoning included). */
  output: number;
  /** Input tokens read from the prompt cache. */
  cacheRead?: number;
  /** Input tokens written to the prompt cache. */
  cacheWrite?: number;
}

/** A provider: where requests go and how they authenticate. */
export interface ProviderSettings {
  /** Wire protocol. */
  api: ApiStyle;
  /** Base URL (Anthropic without `/v1`, OpenAI-compatible servers with it). */
  baseUrl: string;
  /** The environment variable holding the API key; none when the server needs no key. */
  apiKeyEnv?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** Quirks of an OpenAI-compatible server. */
  compat?: OpenAICompat;
  /** Abort a response when the server sends nothing for this long (ms). */
  idleTimeoutMs?: number;
  /** The config file that defined it (absent for built-in providers). */
  source?: string;
}

/** A model under an alias. */
export interface ModelSettings {
  /** The provider's name in {@linkcode PantoConfig.providers}. */
  provider: string;
  /** The model name as the server knows it. */
  model: string;
  /** Reasoning level; `off` when unset. */
  reasoning?: ReasoningLevel;
  /** Context window in tokens. */
  contextWindow?: number;
  /** Output token limit. */
  maxTokens?: number;
  /** Prices, for the cost shown to the user. */
  price?: ModelPricing;
  /** The config file that defined it. */
  source: string;
}

/** Settings of the built-in tools. */
export interface ToolSettings {
  /** Absolute directories outside the working directory that file tools may use. */
  allowedPaths: string[];
  /** Default timeout of a bash command, in seconds. */
  bashTimeoutSeconds: number;
  /**
   * Tools whose calls need the user's approval first (`panto acp` asks the
   * editor; the other modes do not ask yet). Project configs can only add to it.
   */
  requireApproval?: string[];
  /**
   * Variables kept from every process panto starts, besides the API key
   * variables (which always are). Both config files add up.
   */
  hideEnv?: string[];
  /**
   * Run the model's bash commands in an OS sandbox (bubblewrap, Linux): the
   * project writable, the rest read-only, panto's processes and home out of
   * sight, the network on unless `network` is false.
   */
  sandbox?: { enabled: boolean; network?: boolean };
}

export type { McpServerEntry, McpServerSettings } from "@panto/lib/mcp";

/**
 * The merged configuration: built-in providers, then `$PANTO_HOME/config.json`,
 * then the project's `.panto/config.json`.
 *
 * @example Look up an alias
 * ```ts
 * import type { PantoConfig } from "./panto_config.ts";
 * function providerOf(config: PantoConfig, alias: string): string | undefined {
 *   return Object.hasOwn(config.models, alias) ? config.models[alias]!.provider : undefined;
 * }
 * console.assert(typeof providerOf === "function");
 * ```
 */
export interface PantoConfig {
  /** The model used when none is given: an alias or `provider/model`. */
  defaultModel?: string;
  /** Where `defaultModel` was set, for error messages. */
  defaultModelSource?: string;
  /** Providers by name, built-in ones included. Look names up with `Object.hasOwn`. */
  providers: Record<string, ProviderSettings>;
  /** Models by alias, in definition order. Look names up with `Object.hasOwn`. */
  models: Record<string, ModelSettings>;
  /** The aliases ctrl+p cycles through, in order; unset: every alias. */
  cycleModels?: string[];
  /** Where `cycleModels` was set, for error messages. */
  cycleModelsSource?: string;
  /** Compaction settings (unset fields take the library's defaults). */
  compaction: CompactionConfig;
  /** Retry settings (unset fields take the library's defaults). */
  retry: RetryConfig;
  /** Key bindings: action name → keys (an empty list unbinds the action). */
  keybindings: Record<string, string[]>;
  /** The config file that set each action's keys, for error messages. */
  keybindingSources: Record<string, string>;
  /** Built-in tool settings. */
  tools: ToolSettings;
  /** Run the tool calls of one message concurrently. */
  parallelTools: boolean;
  /** Idle timeout (ms) of providers that set none; the library's default when unset. */
  idleTimeoutMs?: number;
  /** MCP servers by name (later files replace a server whole). */
  mcpServers?: Record<string, McpServerSettings>;
  /** Reasoning level of a model whose alias sets none (`--thinking` wins); `off` when unset. */
  defaultThinkingLevel?: ReasoningLevel;
  /** Start the chat with thinking blocks hidden. */
  hideThinkingBlock?: boolean;
  /** The interactive chat's theme (a built-in one or a theme file's name); `dark` when unset. */
  theme?: string;
  /** Where `theme` was set, for messages. */
  themeSource?: string;
  /** The config files that were read, in precedence order (later wins). */
  files: string[];
  /** Things the user must be told, such as project settings ignored for lack of trust. */
  notices: string[];
}
