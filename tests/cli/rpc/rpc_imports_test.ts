/**
 * RPC mode loads no terminal UI: the modules `cli/rpc/rpc_mode.ts` imports
 * at run time (static imports, `import type` left out: it is erased) hold
 * nothing from `tui/` or `cli/interactive/`.
 */
import assert from "node:assert/strict";

interface ModuleInfo {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** The modules loaded with `root` before any dynamic import runs. */
async function staticGraph(root: string): Promise<string[]> {
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

Deno.test("rpc mode's modules load no terminal UI", async () => {
  const root = new URL("../../../cli/rpc/rpc_mode.ts", import.meta.url).href;
  const loaded = await staticGraph(root);
  assert.ok(loaded.some((s) => s.endsWith("/cli/controller/session_controller.ts")));
  const ui = loaded.filter((s) => /\/tui\/|\/cli\/interactive\//.test(s));
  assert.deepEqual(ui, []);
});
