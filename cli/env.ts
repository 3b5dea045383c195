import { envPermissionMessage } from "./permission_message.ts";
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

function notPermitted(name: string): CliError {
  return new CliError(envPermissionMessage(name));
}
