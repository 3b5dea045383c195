/**
 * Shapes of API keys and tokens: vendor prefixes (OpenAI and Anthropic
 * `sk-`, Groq `gsk_`, xAI `xai-`, Google `AIza`, GitHub, GitLab, Hugging
 * Face, Slack, AWS), JWTs, and long runs of hex or of base64 mixing upper
 * and lower case and digits (as random tokens do and names seldom do; an
 * absolute path, starting with `/`, is not taken for one).
 */
const SECRET_SHAPES: readonly RegExp[] = [
  /^(?:sk|rk|pk)[-_][\w-]{6,}/,
  /^(?:gsk|xai|hf|ghp|gho|ghu|ghs|ghr|glpat|github_pat|xox[abprs])[-_][\w-]{6,}/,
  /^AIza[\w-]{10,}/,
  /^(?:AKIA|ASIA)[A-Z0-9]{12,}/,
  /^eyJ[\w-]{10,}/,
  /^[0-9a-fA-F]{32,}$/,
  /^(?!\/)(?=[\w+/=-]*\d)(?=[\w+/=-]*[a-z])(?=[\w+/=-]*[A-Z])[\w+/=-]{32,}$/,
];

/**
 * Words are split at whitespace, quotes and the separators around values in
 * text, and at `.` (JSON paths such as `providers.NAME`; keys have none).
 */
const WORD = /[^\s"'`,;:=()[\]{}<>.]+/g;

/**
 * Whether a value looks like an API key or token (so it must not be shown).
 *
 * @param value The value.
 * @returns `true` for the shapes of common keys and long random tokens.
 *
 * @example
 * ```ts
 * import { looksLikeSecret } from "./redact_secrets.ts";
 * console.assert(looksLikeSecret("sk-ant-api03-abcdefgh"));
 * console.assert(!looksLikeSecret("defaultModel"));
 * ```
 */
export function looksLikeSecret(value: string): boolean {
  return SECRET_SHAPES.some((shape) => shape.test(value));
}

/**
 * Replaces every word of `text` that looks like a key with a short vendor
 * prefix and `…` (`sk-ant-…`), which is enough to recognise the mistake and
 * reveals nothing of the key.
 *
 * @param text A message or value.
 * @returns The text with key-like words masked.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./redact_secrets.ts";
 * console.assert(redactSecrets('unknown key "gsk_abc123def456"') === 'unknown key "gsk_…"');
 * ```
 */
export function redactSecrets(text: string): string {
  return text.replace(WORD, (word) => (looksLikeSecret(word) ? mask(word) : word));
}

/** Public vendor prefixes, longest first: the only part of a key ever shown. */
const KNOWN_PREFIXES = [
  "sk-ant-",
  "sk-proj-",
  "sk-or-",
  "sk-",
  "gsk_",
  "xai-",
  "AIza",
  "github_pat_",
  "ghp_",
  "glpat-",
  "hf_",
];

function mask(word: string): string {
  return `${KNOWN_PREFIXES.find((prefix) => word.startsWith(prefix)) ?? ""}…`;
}
