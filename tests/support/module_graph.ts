/**
 * The modules a root loads before any dynamic import runs, for tests that
 * check what a mode keeps out (the terminal UI).
 */
import assert from "node:assert/strict";

interface ModuleInfo {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/**
 * The modules loaded with `root` before any dynamic import runs (static
 * imports; `import type` is erased and left out).
 *
 * @param root A module URL.
 * @returns Their specifiers.
 */
export async function staticGraph(root: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: ModuleInfo[];
    redirects: Record<string, string>;
  };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...info.roots];
  while (stack.length) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target && !dependency.isDynamic) stack.push(info.redirects[target] ?? target);
    }
  }
  return [...seen];
}
