import { fileURLToPath } from "node:url";

/** What `deno info --json` says of a module graph (the part used here). */
interface ModuleGraph {
  modules?: { specifier?: string }[];
}

/**
 * The local files an extension module loads: itself and every `file:`
 * module of its graph — static imports and dynamic imports of literal
 * specifiers, at any depth, in the project or outside it — as Deno's own
 * resolver finds them (`deno info --json`; reading the import statements by
 * hand would miss re-exports, `import()` and the rest). Remote and npm
 * modules are left out: they are not the project's code.
 *
 * @param entry The extension module (an absolute path).
 * @returns Absolute paths, sorted, `entry` included.
 * @throws {Error} When Deno cannot list the graph: the caller must not
 *   trust what it could not see.
 *
 * @example
 * ```ts
 * import { localModules } from "./local_modules.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/helper.ts`, "export const x = 1;");
 * await Deno.writeTextFile(`${dir}/main.ts`, 'import { x } from "./helper.ts"; export default () => x;');
 * const files = await localModules(`${dir}/main.ts`);
 * console.assert(files.length === 2 && files[0]!.endsWith("helper.ts"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function localModules(entry: string): Promise<string[]> {
  // Without the project's config: panto imports extensions with its own, not the project's.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-config", "--quiet", entry],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(
      `could not list the modules ${entry} loads: ${decoder.decode(output.stderr).trim()}`,
    );
  }
  const graph = JSON.parse(decoder.decode(output.stdout)) as ModuleGraph;
  const files = (graph.modules ?? [])
    .map((module) => module.specifier ?? "")
    .filter((specifier) => specifier.startsWith("file:"))
    .map((specifier) => fileURLToPath(specifier));
  return [...new Set([entry, ...files])].sort();
}
