import { join } from "node:path";

/**
 * The base environment of a child process whose HOME is `home` (a
 * temporary directory): PATH, and Deno's module cache kept where it is so
 * the child does not download and compile everything again.
 *
 * @param home The child's HOME.
 */
export function childEnv(home: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    HOME: home,
  };
}
