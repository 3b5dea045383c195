/**
 * The chat's approval dialog on the virtual terminal: an edit's diff before
 * it runs, `a` (always) covering the next call, esc rejecting, `n` opening a
 * reason box that esc leaves and enter sends.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ChatArgs } from "../../../cli/setup/args.ts";
import { installApprovals } from "../../../cli/approvals/install_approvals.ts";

/** Asks through the chat's dialog, as `run_interactive` wires it. */
function askInChat(chat: ChatHarness): void {
  installApprovals(
    chat.controller,
    { autoApprove: false } as ChatArgs,
    (request, signal) => chat.chat.askApproval(request, signal),
  );
}

function toolCall(chat: ChatHarness, id: string, name: string, input: Record<string, unknown>) {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "tool_use", id, name, input }] });
}

function answer(chat: ChatHarness, text: string): void {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

function lastRequest(chat: ChatHarness): string {
  return JSON.stringify(chat.fixture.server.requests.at(-1)!.body);
}

Deno.test("approval dialog: an edit's diff before it runs; always covers the next edit until /new", async () => {
  await withChat(async (chat) => {
    askInChat(chat);
    const file = join(chat.fixture.project, "list.txt");
    await Deno.writeTextFile(file, "one\ntwo\nthree\n");
    toolCall(chat, "c1", "edit", { path: "list.txt", oldText: "two", newText: "TWO" });
    toolCall(chat, "c2", "edit", { path: "list.txt", oldText: "three", newText: "THREE" });
    answer(chat, "Both edited.");
    await chat.send("shout");
    const dialog = await chat.waitFor(/Allow edit list\.txt\?/);
    assert.match(dialog, /2 - two\s+│\n│\s+2 \+ TWO/);
    assert.match(dialog, /a always allow every edit call/);
    assert.equal(await Deno.readTextFile(file), "one\ntwo\nthree\n");
    await chat.type("a");
    await chat.waitFor("Both edited.");
    await chat.waitIdle();
    assert.equal(
      await Deno.readTextFile(file),
      "one\nTWO\nTHREE\n",
      "the second edit was not asked",
    );
    assert.doesNotMatch(await chat.screen(), /Allow edit/);

    // Another conversation forgets it; its agent asks too.
    await chat.send("/new");
    await chat.waitFor("New session.");
    toolCall(chat, "c3", "edit", { path: "list.txt", oldText: "one", newText: "ONE" });
    answer(chat, "Left alone.");
    await chat.send("shout again");
    await chat.waitFor(/Allow edit list\.txt\?/);
    await chat.press(KEYS.escape);
    await chat.waitFor("Left alone.");
    await chat.waitIdle();
    assert.equal(await Deno.readTextFile(file), "one\nTWO\nTHREE\n");
  }, { config: { retry: { maxRetries: 0 }, tools: { requireApproval: ["edit"] } } });
});

Deno.test("approval dialog: esc rejects; n asks why, esc goes back, enter sends the reason", async () => {
  await withChat(async (chat) => {
    askInChat(chat);
    toolCall(chat, "c1", "bash", { command: "touch made.txt" });
    answer(chat, "Not run.");
    await chat.send("make it");
    const dialog = await chat.waitFor(/Allow bash/);
    assert.match(dialog, /\$ touch made\.txt/);
    assert.match(dialog, /a always allow bash commands starting with `touch`/);
    await chat.press(KEYS.escape);
    await chat.waitFor("Not run.");
    await chat.waitIdle();
    assert.match(lastRequest(chat), /bash was denied: the user rejected this call"/);

    toolCall(chat, "c2", "bash", { command: "touch made.txt" });
    answer(chat, "Understood.");
    await chat.send("make it anyway");
    await chat.waitFor(/Allow bash/);
    await chat.type("n");
    await chat.waitFor(/Reject bash: why\?/);
    await chat.press(KEYS.escape);
    await chat.waitFor(/Allow bash/);
    await chat.type("n");
    await chat.type("not in this repo");
    await chat.press(KEYS.enter);
    await chat.waitFor("Understood.");
    await chat.waitIdle();
    assert.match(lastRequest(chat), /the user rejected this call and said: not in this repo/);
    await assert.rejects(Deno.stat(join(chat.fixture.project, "made.txt")), Deno.errors.NotFound);
    // The editor is back and takes the next prompt.
    answer(chat, "Hello.");
    await chat.send("hi");
    await chat.waitFor("Hello.");
  }, { config: { retry: { maxRetries: 0 }, tools: { requireApproval: ["bash"] } } });
});
