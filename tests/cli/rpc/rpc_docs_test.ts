/** docs/rpc.md documents every command and every controller event. */
import assert from "node:assert/strict";
import { CONTROLLER_EVENT_TYPES } from "../../../cli/controller/controller_events.ts";
import { RPC_COMMAND_TYPES } from "../../../cli/rpc/rpc_commands.ts";

const docs = await Deno.readTextFile(new URL("../../../docs/rpc.md", import.meta.url));

/** Names in the first column of the doc's tables. */
const tabled = new Set([...docs.matchAll(/^\| `([a-z_]+)` /gm)].map((m) => m[1]));

Deno.test("docs/rpc.md has a table row for every command", () => {
  assert.deepEqual(RPC_COMMAND_TYPES.filter((type) => !tabled.has(type)), []);
});

Deno.test("docs/rpc.md has a table row for every controller event", () => {
  assert.deepEqual([...CONTROLLER_EVENT_TYPES].filter((type) => !tabled.has(type)), []);
});
