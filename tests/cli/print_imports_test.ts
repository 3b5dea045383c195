/**
 * A start loads no CommonJS package (each would bring in Node's module
 * loader) and no MCP SDK: the modules `cli/program.ts` imports at run time
 * (static imports, `import type` left out) hold none of them. They load on
 * first need: jsonc-parser for a config's JSON error, partial-json for a
 * message cut off in a tool call, the SDK when an MCP server is configured.
 */
import assert from "node:assert/strict";
import { staticGraph } from "../support/module_graph.ts";

Deno.test("a start loads neither CommonJS packages nor the MCP SDK", async () => {
  const root = new URL("../../cli/program.ts", import.meta.url).href;
  const loaded = await staticGraph(root);
  assert.ok(loaded.some((s) => s.endsWith("/cli/controller/session_controller.ts")));
  const heavy = loaded.filter((s) => /jsonc-parser|partial-json|@modelcontextprotocol/.test(s));
  assert.deepEqual(heavy, []);
});
