/** `loadExtensions`: a host whose view closed (an ACP session) stops claiming uncaught errors. */
import assert from "node:assert/strict";
import { type ChatArgs, parseArgs } from "../../../cli/setup/args.ts";
import { loadExtensions } from "../../../cli/controller/load_extensions.ts";

const FIXTURE = new URL("../extensions/fixtures/full.ts", import.meta.url).pathname;

/** An error thrown from the fixture's module, as a timer of the extension would throw it. */
async function errorFromFixture(): Promise<unknown> {
  const { explode } = await import(FIXTURE);
  try {
    explode();
  } catch (error) {
    return error;
  }
  throw new Error("explode() did not throw");
}

/** Dispatches an uncaught-error event; true when a listener claimed it. */
function claimed(error: unknown): boolean {
  const event = new ErrorEvent("error", { error, cancelable: true });
  globalThis.dispatchEvent(event);
  return event.defaultPrevented;
}

Deno.test("loadExtensions: once `closed` aborts, the host no longer claims the extension's uncaught errors", async () => {
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    const closed = new AbortController();
    const reports: string[] = [];
    const host = await loadExtensions(
      {
        cwd: home,
        pantoHome: home,
        untrustedProject: "refuse",
        registerTool: () => {},
        messages: () => [],
      },
      parseArgs(["--no-extensions", "-e", FIXTURE, "-p", "x"]) as ChatArgs,
      {
        mode: "acp",
        uiEvents: undefined,
        notify: (text) => reports.push(text),
        submit: () => {},
        reservedCommands: [],
        closed: closed.signal,
      },
    );
    assert.ok(host, "the -e extension loaded");
    const error = await errorFromFixture();
    assert.equal(claimed(error), true, "claimed while open");
    assert.match(reports.join("\n"), /threw outside a handler/);
    closed.abort();
    assert.equal(claimed(error), false, "left to others once closed");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
