/**
 * The API key variables of the vendors panto knows, hidden from every
 * command it runs whether or not the config uses them (the `deno task panto`
 * grant lists the same names).
 */
export const BUILTIN_KEY_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "OPENROUTER_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "MISTRAL_API_KEY",
  "GEMINI_API_KEY",
  "AZURE_OPENAI_API_KEY",
];

/** panto's own variables (`PANTO_HOME`, `PANTO_CWD`, any secret) all start with this. */
const PANTO_PREFIX = "PANTO_";

/**
 * The names of the variables holding API keys: the built-in vendors', every
 * provider's `apiKeyEnv` in the config, and `--api-key-env` when given.
 *
 * @param config The loaded config (only its providers' `apiKeyEnv` are read).
 * @param flag The `--api-key-env` value, if any.
 * @returns The names, without duplicates.
 *
 * @example
 * ```ts
 * import { keyVariables } from "./child_env.ts";
 * const names = keyVariables({ providers: { mine: { apiKeyEnv: "MY_KEY" } } }, "OTHER_KEY");
 * console.assert(names.includes("MY_KEY") && names.includes("OTHER_KEY"));
 * console.assert(names.includes("ANTHROPIC_API_KEY"));
 * ```
 */
export function keyVariables(
  config: { providers: Readonly<Record<string, { apiKeyEnv?: string }>> },
  flag?: string,
): string[] {
  const names = new Set(BUILTIN_KEY_VARIABLES);
  for (const provider of Object.values(config.providers)) {
    if (provider.apiKeyEnv) names.add(provider.apiKeyEnv);
  }
  if (flag) names.add(flag);
  return [...names];
}

/**
 * The environment of a command panto runs for the model or the user (the
 * bash tool, `!command`): every variable panto may read, less the API key
 * variables named in `hidden` and every `PANTO_*` variable. Spawn with
 * `clearEnv: true`: otherwise the child inherits panto's whole environment,
 * keys included, even those panto itself may not read.
 *
 * @param hidden Names of variables that hold secrets (see {@linkcode keyVariables}).
 * @returns The variables to pass.
 *
 * @example
 * ```ts
 * import { childEnv } from "./child_env.ts";
 * const env = childEnv(["ANTHROPIC_API_KEY"]);
 * console.assert(!("ANTHROPIC_API_KEY" in env));
 * ```
 */
export function childEnv(hidden: readonly string[]): Record<string, string> {
  const skip = new Set(hidden);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(readableEnv())) {
    if (!skip.has(name) && !name.startsWith(PANTO_PREFIX)) env[name] = value;
  }
  return env;
}

/**
 * Variables commonly needed by commands, read one by one when panto may not
 * list the environment (a partial `--allow-env` without `--ignore-env`);
 * the launcher grants them all.
 */
export const COMMON_VARIABLES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XDG_RUNTIME_DIR",
  "XAUTHORITY",
];

/** What panto may read: all of it, or (with `--ignore-env`) only the granted names. */
function readableEnv(): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch (error) {
    if (
      !(error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied)
    ) {
      throw error;
    }
  }
  const env: Record<string, string> = {};
  for (const name of COMMON_VARIABLES) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // Not granted: the command runs without it.
    }
  }
  return env;
}
