/**
 * RPC mode loads no terminal UI: the modules `cli/rpc/rpc_mode.ts` imports
 * at run time (static imports, `import type` left out: it is erased) hold
 * nothing from `tui/` or `cli/chat/`.
 */
import assert from "node:assert/strict";
import { staticGraph } from "../../support/module_graph.ts";

Deno.test("rpc mode's modules load no terminal UI", async () => {
  const root = new URL("../../../cli/rpc/rpc_mode.ts", import.meta.url).href;
  const loaded = await staticGraph(root);
  assert.ok(loaded.some((s) => s.endsWith("/cli/controller/session_controller.ts")));
  const ui = loaded.filter((s) => /\/tui\/|\/cli\/chat\//.test(s));
  assert.deepEqual(ui, []);
});
