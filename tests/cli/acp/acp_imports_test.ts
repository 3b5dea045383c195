/** `panto acp` loads no terminal UI: nothing from `tui/` or `cli/chat/`. */
import assert from "node:assert/strict";
import { staticGraph } from "../../support/module_graph.ts";

Deno.test("acp mode's modules load no terminal UI", async () => {
  const root = new URL("../../../cli/acp/acp_mode.ts", import.meta.url).href;
  const loaded = await staticGraph(root);
  assert.ok(loaded.some((s) => s.endsWith("/cli/controller/session_controller.ts")));
  assert.ok(loaded.some((s) => s.includes("@agentclientprotocol/sdk")));
  const ui = loaded.filter((s) => /\/tui\/|\/cli\/chat\//.test(s));
  assert.deepEqual(ui, []);
});
