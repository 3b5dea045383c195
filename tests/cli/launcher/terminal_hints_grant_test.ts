import assert from "node:assert/strict";
import { BASE_VARIABLES } from "../../../cli/launcher/permission_flags.ts";
import { TERMINAL_HINT_VARIABLES } from "../../../tui/image_support.ts";

Deno.test("launcher: grants every variable the image support detection reads", () => {
  // TMUX_PANE names the pane whose allow-passthrough option is asked (tui/runtime/terminal_env.ts).
  const missing = [...TERMINAL_HINT_VARIABLES, "TMUX_PANE"].filter((name) =>
    !BASE_VARIABLES.includes(name)
  );
  assert.deepEqual(missing, [], "add them to BASE_VARIABLES and the compile task's --allow-env");
});
