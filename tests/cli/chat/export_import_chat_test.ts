/**
 * `/export` and `/import` in the chat: the format follows the extension, an
 * existing file is replaced only when the user says so, a path of no known
 * format is explained, and an imported pi session opens at once; a
 * malformed file is named with its line.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const WIDE = { columns: 220 };

function flat(screen: string): string {
  return screen.replace(/\s+/g, " ");
}

async function ask(chat: ChatHarness, prompt: string, reply: string): Promise<void> {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: reply }] });
  await chat.send(prompt);
  await chat.waitFor(reply);
  await chat.waitIdle();
}

Deno.test("/export: HTML by the extension; asks before replacing a file; says which extensions it knows", async () => {
  await withChat(async (chat) => {
    await ask(chat, "export me", "Exported answer.");
    const page = join(chat.fixture.project, "out.html");
    await chat.send("/export out.html");
    await chat.waitFor(`Exported to ${page} (html)`);
    const html = await Deno.readTextFile(page);
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /export me/);

    await Deno.writeTextFile(page, "kept");
    await chat.send("/export out.html");
    await chat.waitFor("exists: overwrite it?");
    await chat.press(KEYS.enter); // the first choice: keep it
    await chat.waitFor(`Not exported: ${page} is left as it was.`);
    assert.equal(await Deno.readTextFile(page), "kept");

    await chat.send("/export out.html");
    await chat.waitFor("exists: overwrite it?");
    await chat.press(KEYS.down, KEYS.enter);
    await chat.waitFor((screen) => flat(screen).split(`Exported to ${page}`).length > 2);
    assert.match(await Deno.readTextFile(page), /Exported answer\./);

    await chat.send("/export notes.txt");
    const screen = flat(await chat.waitFor("Cannot tell which format"));
    assert.match(screen, /name it \.html, \.md or \.jsonl/);
  }, WIDE);
});

Deno.test("/import: a pi session opens at once; a malformed file is named with its line", async () => {
  await withChat(async (chat) => {
    const pi = fileURLToPath(new URL("../../fixtures/import/pi_session.jsonl", import.meta.url));
    await chat.send(`/import ${pi}`);
    const screen = flat(await chat.waitFor("skipped entries panto has no use for"));
    assert.match(screen, /Now there are 14 sourdough loaves\./, "the imported session is shown");
    assert.match(screen, /\(pi session\) as session \S+ "bakery stock": 8 messages/);
    assert.match(screen, /skipped entries panto has no use for: 1 model_change/);
    const [imported] = await chat.controller.store.list();
    assert.equal(chat.controller.session.id, imported?.id, "the chat is on the imported session");

    const broken = join(chat.fixture.project, "broken.jsonl");
    await Deno.writeTextFile(
      broken,
      '{"type":"session","version":3,"id":"x","timestamp":"t"}\nnope\n',
    );
    await chat.send("/import broken.jsonl");
    await chat.waitFor(`Cannot import ${broken}:2: invalid JSON`);
  }, WIDE);
});
