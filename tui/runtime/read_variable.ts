/**
 * A variable's value, or undefined when it is unset or may not be read
 * (panto's launcher grants only the variables it names). A variable not
 * granted is not read at all: reading it would prompt the user for it.
 *
 * @param name The variable.
 * @returns Its value, if set and readable.
 *
 * @example
 * ```ts
 * import { readVariable } from "./read_variable.ts";
 * console.assert(readVariable("PANTO_SURELY_UNSET_VARIABLE") === undefined);
 * ```
 */
export function readVariable(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
