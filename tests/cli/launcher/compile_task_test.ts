/**
 * `deno task compile` fixes its grants at build time: its `--allow-env` list
 * must hold every variable the launcher grants and every built-in key
 * variable, or a compiled panto silently lacks them (no clipboard without
 * DISPLAY, no key without its variable).
 */
import assert from "node:assert/strict";
import { AWS_VARIABLES } from "../../../cli/config/provider_credentials.ts";
import { BASE_VARIABLES } from "../../../cli/launcher/permission_flags.ts";
import { BUILTIN_KEY_VARIABLES } from "../../../cli/tools/child_env.ts";

Deno.test("compile task: --allow-env grants what the launcher grants and every built-in key variable", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  const allowEnv = config.tasks.compile?.match(/--allow-env=(\S+)/)?.[1];
  assert.ok(allowEnv, `the compile task names its variables: ${config.tasks.compile}`);
  const granted = new Set(allowEnv.split(","));
  const missing = [...BASE_VARIABLES, ...AWS_VARIABLES, ...BUILTIN_KEY_VARIABLES, "PANTO_CWD"]
    .filter((name) => !granted.has(name));
  assert.deepEqual(missing, [], "variables the compiled panto could not read");
});
