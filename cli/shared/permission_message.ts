/**
 * Missing permissions in words: what panto may not do and how to get it, in
 * terms of panto's own settings rather than Deno's flags (the `panto`
 * command computes the flags: see `cli/launcher/launch.ts`).
 *
 * @module
 */

/** Where `panto` (the launcher) lets the program read and write. */
const GRANTED_PLACES =
  'the project (the git root above the directory panto started in, else that directory), $PANTO_HOME and the config\'s "tools.allowedPaths"';

/**
 * What to tell the user about a permission the program lacks, from Deno's
 * `NotCapable` message ("Requires write access to "/tmp/x.md", run again with
 * the --allow-write flag"): what panto may not do and how to get it, in
 * terms of panto's own settings rather than Deno's flags.
 *
 * @param denoMessage The `NotCapable` error's message.
 * @returns One line for the user.
 *
 * @example
 * ```ts
 * import { permissionMessage } from "./permission_message.ts";
 * const text = permissionMessage('Requires write access to "/tmp/x.md", run again with the --allow-write flag');
 * console.assert(text.startsWith("panto may not write /tmp/x.md"));
 * ```
 */
export function permissionMessage(denoMessage: string): string {
  const match = /^Requires (\w+) access to "([^"]*)"/.exec(denoMessage);
  const [kind, target] = match ? [match[1]!, match[2]!] : ["", ""];
  if ((kind === "read" || kind === "write") && target.includes(",")) {
    return `panto may not ${kind} ${target}: Deno's permission lists split paths at commas, so no setting can grant a path with a comma; use a path without one`;
  }
  if (kind === "read" || kind === "write") {
    return `panto may not ${kind} ${target}: the panto command lets it read and write only ${GRANTED_PLACES}. Use a path there, or add the directory to "tools.allowedPaths" in $PANTO_HOME/config.json and start panto again (run with your own deno run flags, add --allow-${kind}=${target})`;
  }
  if (kind === "env") return envPermissionMessage(target);
  return `panto lacks a permission (${denoMessage}): start it with the \`panto\` command or \`deno task panto\`, which grant what it needs`;
}

/**
 * What to tell the user when panto may not read an environment variable.
 *
 * @param name The variable.
 * @returns One line for the user.
 *
 * @example
 * ```ts
 * import { envPermissionMessage } from "./permission_message.ts";
 * console.assert(envPermissionMessage("MY_KEY").includes('"apiKeyEnv": "MY_KEY"'));
 * ```
 */
export function envPermissionMessage(name: string): string {
  return `panto may not read the environment variable ${name}: besides its own and the terminal's (docs/cli.md#permissions), it reads only the key variables its config or flags name. If ${name} holds a provider's key, name it ("apiKeyEnv": "${name}" in a provider of $PANTO_HOME/config.json, or --api-key-env ${name}) and start panto again`;
}
