/**
 * A start loads no CommonJS package (each would bring in Node's module
 * loader) and no MCP SDK: the modules `cli/program.ts` imports at run time
 * (static imports, `import type` left out) hold none of them. They load on
 * first need: jsonc-parser for a config's JSON error, partial-json for a
 * message cut off in a tool call, the SDK when an MCP server is configured.
 * Nor does it load optique (the full argument parser: help, errors,
 * completion), `diff` (edit's result) or `minimatch` (find's and grep's
 * globs): a plain print command line is read without optique, and the
 * tools load theirs when they run. Nor zod: a plain config file is checked
 * without it, and the session schemas load with the first read of a stored
 * session. Nor any provider: the registry loads a built-in on its first
 * request. Nor themes: only the interactive chat reads them. Nor the SQLite and
 * PostgreSQL stores: they load when `--store` names one.
 */
import assert from "node:assert/strict";
import { staticGraph } from "../../support/module_graph.ts";

/** The modules a start loads, read once (`deno info`) for the three tests. */
let startGraph: Promise<string[]> | undefined;
function loadedAtStart(): Promise<string[]> {
  return startGraph ??= staticGraph(new URL("../../../cli/program.ts", import.meta.url).href);
}

Deno.test("a start loads neither CommonJS packages nor the MCP SDK", async () => {
  const loaded = await loadedAtStart();
  assert.ok(loaded.some((s) => s.endsWith("/cli/controller/session_controller.ts")));
  const heavy = loaded.filter((s) => /jsonc-parser|partial-json|@modelcontextprotocol/.test(s));
  assert.deepEqual(heavy, []);
});

Deno.test("a start loads neither optique nor the tools' diff and glob packages", async () => {
  const loaded = await loadedAtStart();
  assert.ok(loaded.some((s) => s.endsWith("/lib/tools/builtin_tools.ts")));
  const heavy = loaded.filter((s) => /@optique|\/diff@|\/minimatch@/.test(s));
  assert.deepEqual(heavy, []);
});

Deno.test("a start loads no zod", async () => {
  const loaded = await loadedAtStart();
  assert.ok(loaded.some((s) => s.endsWith("/lib/session/jsonl_store.ts")));
  assert.ok(loaded.some((s) => s.endsWith("/cli/config/load_config.ts")));
  assert.deepEqual(loaded.filter((s) => /\/zod@|\/session\/schemas\.ts$/.test(s)), []);
});

Deno.test("a start loads no provider: each built-in loads on its first request", async () => {
  const loaded = await loadedAtStart();
  assert.ok(loaded.some((s) => s.endsWith("/lib/providers/registry.ts")));
  const providers = loaded.filter((s) =>
    /\/lib\/providers\/(anthropic|openai|google|bedrock|aws)_[a-z_]+\.ts$|@smithy/.test(s)
  );
  assert.deepEqual(providers, []);
});

Deno.test("a start loads no theme code", async () => {
  const loaded = await loadedAtStart();
  const themes = loaded.filter((s) =>
    /\/tui\/(theme|builtin_themes|theme_file)\.ts$|\/cli\/themes\//.test(s)
  );
  assert.deepEqual(themes, []);
});

Deno.test("a start loads the SQLite and PostgreSQL stores only when one is chosen", async () => {
  const loaded = await loadedAtStart();
  assert.ok(loaded.some((s) => s.endsWith("/cli/setup/session_store.ts")));
  const stores = loaded.filter((s) =>
    /\/lib\/session\/(sqlite|postgres)_store\.ts$|^node:sqlite$/.test(s)
  );
  assert.deepEqual(stores, []);
});
