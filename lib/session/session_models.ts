import type { ProviderConfig } from "../config.ts";
import { redactUrl } from "./redact_url.ts";
import type { SessionInfo, WireIdentity } from "./types.ts";

/** A configured model a user can pick, under its alias. */
export interface ModelChoice {
  /** The name the user knows it by (e.g. `sonnet` or `anthropic/claude-sonnet-4-5`). */
  alias: string;
  /** The provider settings behind it. */
  provider: ProviderConfig;
}

/**
 * The configured models whose wire identity equals the session's last one,
 * for pre-selecting a model on resume. One match: pre-select it; none: use
 * the default; several: the caller picks.
 *
 * @param models The configured choices.
 * @param info The session's info.
 * @returns The matching choices, in configuration order.
 *
 * @example
 * ```ts
 * import { modelsMatchingSession } from "@panto/lib";
 * const provider = { api: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4o", reasoning: "off" } as const;
 * const info = { id: "x", created: "", modified: "", messageCount: 1, lastUserMessage: "",
 *   wire: { apiStyle: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4o", reasoning: "off" } } as const;
 * console.assert(modelsMatchingSession([{ alias: "4o", provider }], info).length === 1);
 * ```
 */
export function modelsMatchingSession(
  models: readonly ModelChoice[],
  info: SessionInfo,
): ModelChoice[] {
  const wire = info.wire;
  if (!wire) return [];
  return models.filter((choice) => sameWire(wireIdentity(choice.provider), wire));
}

/**
 * The wire identity of a provider config: no key, no alias, and the base
 * URL without credentials (see {@linkcode redactUrl}), since it is stored
 * with every assistant message and shown in session lists.
 *
 * @param provider The provider settings.
 * @returns Its identity on the wire.
 */
export function wireIdentity(provider: ProviderConfig): WireIdentity {
  return {
    apiStyle: provider.api,
    baseUrl: redactUrl(provider.baseUrl),
    model: provider.model,
    reasoning: provider.reasoning,
  };
}

function sameWire(a: WireIdentity, b: WireIdentity): boolean {
  return a.apiStyle === b.apiStyle && trimSlash(a.baseUrl) === trimSlash(b.baseUrl) &&
    a.model === b.model && a.reasoning === b.reasoning;
}

/** Redacted too: sessions saved before redaction still match their model. */
function trimSlash(url: string): string {
  return redactUrl(url).replace(/\/+$/, "");
}
