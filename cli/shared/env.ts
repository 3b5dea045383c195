import { envPermissionMessage } from "./permission_message.ts";
import { collectKeys, HANDOFF_VARIABLE } from "../launcher/key_handoff.ts";
import { CliError, UsageError } from "./errors.ts";

/** What an environment variable name looks like (for `apiKeyEnv` and `--api-key-env`). */
export const ENV_NAME_PATTERN: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks that `--api-key-env` names an environment variable. The value is
 * never echoed: a value that is not a name is most likely the key itself.
 *
 * @param name The flag's value.
 * @returns The name.
 * @throws {UsageError} When it is not a variable name.
 *
 * @example
 * ```ts
 * import { keyEnvFlag } from "./env.ts";
 * console.assert(keyEnvFlag("MY_KEY") === "MY_KEY");
 * ```
 */
export function keyEnvFlag(name: string): string {
  if (ENV_NAME_PATTERN.test(name)) return name;
  throw new UsageError(
    "--api-key-env takes the name of the environment variable holding the key (such as MY_API_KEY), not the key itself; the value given is not shown",
  );
}

/**
 * Reads an environment variable, turning a missing `--allow-env` grant into
 * a message that says which permission to add (never a prompt).
 *
 * @param name The variable.
 * @returns Its value, or `undefined` when unset.
 * @throws {CliError} When panto may not read it.
 */
export function readEnv(name: string): string | undefined {
  if (withheld.has(name)) return withheld.get(name);
  if (handedOver.has(name)) return handedOver.get(name);
  let value: string | undefined;
  try {
    value = Deno.env.get(name);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw notPermitted(name);
    }
    throw error;
  }
  // Under --ignore-env an ungranted variable reads as unset: tell it apart.
  if (
    value === undefined &&
    Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted"
  ) {
    throw notPermitted(name);
  }
  return value;
}

/**
 * Variables taken out of the process environment by
 * {@linkcode withholdFromCommands}, with the values they had (in memory
 * only).
 */
const withheld = new Map<string, string | undefined>();

/**
 * Variables the launcher handed over outside the environment
 * ({@linkcode takeHandedOverVariables}), not yet claimed by
 * {@linkcode withholdFromCommands}.
 */
const handedOver = new Map<string, string>();

/**
 * Collects the variables the launcher kept out of panto's environment (see
 * `cli/launcher/key_handoff.ts`) into memory, where {@linkcode readEnv} finds them,
 * and removes the handoff's address from the environment. Nothing happens
 * when panto was not started by the launcher.
 *
 * @throws {CliError} When the launcher cannot be reached.
 *
 * @example
 * ```ts
 * import { takeHandedOverVariables } from "./env.ts";
 * await takeHandedOverVariables(); // without the launcher: nothing to take
 * ```
 */
export async function takeHandedOverVariables(): Promise<void> {
  const address = optionalEnv(HANDOFF_VARIABLE);
  if (address === undefined) return;
  Deno.env.delete(HANDOFF_VARIABLE);
  let values: Record<string, string>;
  try {
    values = await collectKeys(address);
  } catch (error) {
    throw new CliError(
      `panto could not collect its API keys from the panto command that started it: ${
        (error as Error).message
      }`,
    );
  }
  for (const [name, value] of Object.entries(values)) handedOver.set(name, value);
}

/**
 * Takes the named variables (API keys, `tools.hideEnv`) out of panto's
 * process environment and keeps their values in memory, where
 * {@linkcode readEnv} still finds them. Every process panto starts
 * afterwards — the bash tool, `!command`, MCP servers, the editor, clipboard
 * tools, whatever an extension spawns — inherits the user's whole
 * environment without them: the sandbox confines panto's own reads, never
 * the user's commands, so what they get is "all but these", not an
 * allow-list. Names already withheld are skipped; the program calls this
 * once its config is loaded, before it starts any process.
 *
 * @param names The variables to withhold.
 * @throws {CliError} When panto may not read one of them: it could then
 *   neither remove it nor tell whether it is set, and a command would
 *   inherit it.
 *
 * @example
 * ```ts
 * import { readEnv, withholdFromCommands } from "./env.ts";
 * withholdFromCommands(["EXAMPLE_SECRET_KEY"]);
 * console.assert(Deno.env.get("EXAMPLE_SECRET_KEY") === undefined);
 * console.assert(readEnv("EXAMPLE_SECRET_KEY") === undefined);
 * ```
 */
export function withholdFromCommands(names: Iterable<string>): void {
  const unreadable: string[] = [];
  const wanted = new Set(names);
  for (const name of wanted) {
    if (withheld.has(name)) continue;
    if (handedOver.has(name)) {
      withheld.set(name, handedOver.get(name));
      handedOver.delete(name);
      continue;
    }
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      unreadable.push(name);
      continue;
    }
    withheld.set(name, Deno.env.get(name));
    Deno.env.delete(name);
  }
  restoreUnclaimed();
  if (unreadable.length === 0) return;
  throw new CliError(
    `panto cannot keep ${
      unreadable.join(", ")
    } from the commands it runs, because it may not read ${
      unreadable.length === 1 ? "it" : "them"
    }: start panto with the panto command (npx -y deno@2.9.6 task install), which grants every key variable its config names, or add ${
      unreadable.join(",")
    } to your --allow-env`,
  );
}

/**
 * Reads a variable panto can do without: `undefined` when it is unset or
 * panto may not read it (never an error, never a prompt).
 *
 * @param name The variable.
 * @returns Its value, if readable.
 *
 * @example
 * ```ts
 * import { optionalEnv } from "./env.ts";
 * console.assert(optionalEnv("PANTO_SURELY_UNSET_VARIABLE") === undefined);
 * ```
 */
export function optionalEnv(name: string): string | undefined {
  try {
    return readEnv(name);
  } catch {
    return undefined;
  }
}

/**
 * Gives the commands back what the launcher withheld but the config does
 * not (an untrusted project's `apiKeyEnv`, say): it is the user's variable,
 * not a key panto uses.
 */
function restoreUnclaimed(): void {
  for (const [name, value] of handedOver) Deno.env.set(name, value);
  handedOver.clear();
}

function notPermitted(name: string): CliError {
  return new CliError(envPermissionMessage(name));
}
