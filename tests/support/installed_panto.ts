/**
 * The `panto` command as `deno task install` writes it, installed into a
 * temporary root: the tests that prove a feature works "under the installed
 * command" run this, with its launcher and the launcher's grants.
 */
import { join } from "node:path";
import { install } from "../../cli/launcher/install.ts";

/**
 * Installs `panto` into a fresh temporary `DENO_INSTALL_ROOT`, runs `fn`
 * with the command's path, and removes the root afterwards.
 *
 * @param fn The test body, given the installed command.
 */
export async function withInstalledPanto(fn: (panto: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-install-" });
  try {
    const env = new Map([["DENO_INSTALL_ROOT", root], ["HOME", root], ["PATH", ""]]);
    await install((name) => env.get(name));
    await fn(join(root, "bin", "panto"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
