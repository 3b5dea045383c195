/**
 * A view's bug must not end a turn the agent goes on with: a listener that
 * throws on an event leaves the run going (the others hear every event), the
 * failure is an error notice, and the next prompt runs.
 */
import assert from "node:assert/strict";
import { type ChatArgs, parseArgs } from "../../../cli/setup/args.ts";
import type { ControllerEvent } from "../../../cli/controller/controller_events.ts";
import { SessionController } from "../../../cli/controller/session_controller.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";

Deno.test("controller: a listener that throws does not fail the run; it becomes an error notice", async () => {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-listener-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-listener-project-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
    const controller = await SessionController.open(parseArgs([]) as ChatArgs, {
      cwd: project,
      pantoHome: home,
    });
    try {
      const events: ControllerEvent[] = [];
      controller.subscribe((event) => {
        if (event.type === "content_delta") {
          throw new RangeError("Maximum call stack size exceeded");
        }
      });
      controller.subscribe((event) => events.push(event));
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "first answer" }] });
      const first = await controller.prompt("one");
      assert.equal(first.status, "done");
      const notices = events.filter((e) => e.type === "notice");
      assert.ok(
        notices.some((e) =>
          e.type === "notice" && e.level === "error" &&
          e.text.includes("Showing a content_delta event failed (Maximum call stack size exceeded)")
        ),
        JSON.stringify(notices),
      );
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "second answer" }] });
      assert.equal((await controller.prompt("two")).status, "done", "the next prompt runs");
    } finally {
      await controller.close();
    }
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});
