import { CliError } from "./errors.ts";

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
  return new CliError(
    `panto may not read the environment variable ${name}: run it with --allow-env=${name} (or add the name to the panto task's --allow-env list)`,
  );
}
