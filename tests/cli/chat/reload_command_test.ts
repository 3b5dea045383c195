/**
 * `/reload` on the virtual terminal: edited config, AGENTS.md, skills, key
 * bindings and extensions reach the running chat (the next request carries
 * the new system prompt, the conversation kept), one notice says what
 * changed, and a broken config leaves everything as it was.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";

/** Writes `$PANTO_HOME/skills/NAME/SKILL.md`. */
async function writeSkill(chat: ChatHarness, name: string): Promise<void> {
  const dir = join(chat.fixture.home, "skills", name);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Does ${name} things\n---\nSteps for ${name}.\n`,
  );
}

/** Rewrites the user's config.json with `change` applied. */
async function editConfig(chat: ChatHarness, change: Record<string, unknown>): Promise<void> {
  const file = join(chat.fixture.home, "config.json");
  const config = JSON.parse(await Deno.readTextFile(file));
  await Deno.writeTextFile(file, JSON.stringify({ ...config, ...change }));
}

/** The system message of the last request to the fake server. */
function lastSystemPrompt(chat: ChatHarness): string {
  const body = chat.fixture.server.requests.at(-1)?.body as {
    messages: { role: string; content: unknown }[];
  };
  return JSON.stringify(body.messages.filter((m) => m.role === "system"));
}

async function ask(chat: ChatHarness, prompt: string, answer: string): Promise<void> {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: answer }] });
  await chat.send(prompt);
  await chat.waitFor(answer, { everywhere: true });
  await chat.waitIdle();
}

Deno.test("/reload applies an edited AGENTS.md, a new skill and config, keeping the conversation", async () => {
  await withChat(async (chat) => {
    const agents = join(chat.fixture.project, "AGENTS.md");
    await Deno.writeTextFile(agents, "Use tabs.");
    await chat.send("/reload");
    // AGENTS.md written after the start is new to the chat.
    await chat.waitFor("Reloaded: AGENTS.md added", { everywhere: true });
    await ask(chat, "first question", "first answer");
    assert.match(lastSystemPrompt(chat), /Use tabs\./);

    await Deno.writeTextFile(agents, "Use spaces.");
    await writeSkill(chat, "lint");
    await editConfig(chat, { defaultModel: "smart", theme: "light" });
    await chat.send("/reload");
    await chat.waitFor(
      "Reloaded: theme dark → light; 1 skill added (lint); AGENTS.md changed; config: defaultModel",
      { everywhere: true },
    );
    assert.equal(chat.chat.activeTheme.name, "light");
    assert.equal(chat.controller.config.defaultModel, "smart");
    // The model in use stays (defaultModel applies to new chats), the conversation too.
    assert.equal(chat.controller.model.alias, "fast");
    await ask(chat, "second question", "second answer");
    const prompt = lastSystemPrompt(chat);
    assert.match(prompt, /Use spaces\./);
    assert.doesNotMatch(prompt, /Use tabs\./);
    assert.match(prompt, /lint/);
    assert.match(JSON.stringify(chat.fixture.server.requests.at(-1)?.body), /first answer/);
    await chat.send("/reload");
    await chat.waitFor(/Nothing changed/, { everywhere: true });
  });
});

Deno.test("/reload with a broken config.json shows the error and keeps the old config", async () => {
  await withChat(async (chat) => {
    const file = join(chat.fixture.home, "config.json");
    const good = await Deno.readTextFile(file);
    await Deno.writeTextFile(join(chat.fixture.project, "AGENTS.md"), "New rules.");
    await Deno.writeTextFile(file, good.replace('"fast"', '"nowhere"'));
    await chat.send("/reload");
    await chat.waitFor(/Reload failed, nothing changed/, { everywhere: true });
    assert.equal(chat.controller.config.defaultModel, "fast");
    // Nothing half-applied: the AGENTS.md written meanwhile is not in the prompt either.
    assert.deepEqual(chat.controller.contextFiles, []);
    await Deno.writeTextFile(file, good);
    await chat.send("/reload");
    await chat.waitFor("Reloaded: AGENTS.md added", { everywhere: true });
  });
});

Deno.test("/reload rebinds keys, and a binding removed from the config goes back to its default", async () => {
  await withChat(async (chat) => {
    await editConfig(chat, { keybindings: { "app.nextModel": ["ctrl+n"] } });
    await chat.send("/reload");
    await chat.waitFor("config: keybindings", { everywhere: true });
    assert.deepEqual(chat.tui.keybindings.keys("app.nextModel"), ["ctrl+n"]);
    await editConfig(chat, { keybindings: {} });
    await chat.send("/reload");
    await chat.waitFor(/config: keybindings[\s\S]*config: keybindings/, { everywhere: true });
    assert.deepEqual(chat.tui.keybindings.keys("app.nextModel"), ["ctrl+p"]);
  });
});

Deno.test("/reload with a malformed key spec changes nothing", async () => {
  await withChat(async (chat) => {
    await editConfig(chat, { keybindings: { "app.nextModel": ["ctrl+"] }, defaultModel: "smart" });
    await chat.send("/reload");
    await chat.waitFor(/Reload failed, nothing changed[\s\S]*app\.nextModel/, { everywhere: true });
    assert.equal(chat.controller.config.defaultModel, "fast");
    assert.deepEqual(chat.tui.keybindings.keys("app.nextModel"), ["ctrl+p"]);
  });
});

Deno.test("/reload unloads an extension's command and tool and loads the edited file", async () => {
  await withChat(async (chat) => {
    const dir = join(chat.fixture.home, "extensions");
    await Deno.mkdir(dir);
    const file = join(dir, "greet.ts");
    const extension = (command: string, tool: string) =>
      `export default (panto) => {
        panto.registerCommand("${command}", { description: "says ${command}", run: (_a, ctx) => ctx.notify("${command} ran") });
        panto.registerTool({ decl: { name: "${tool}", description: "t", parameters: { type: "object", properties: {} } }, execute: () => "ok" });
      };\n`;
    await Deno.writeTextFile(file, extension("hello", "hello_tool"));
    await chat.controller.loadExtensions({
      mode: "interactive",
      uiEvents: chat.chat.uiEvents,
      notify: (text, level) => chat.chat.notify(text, level),
      submit: (text) => chat.chat.submit(text),
      reservedCommands: [...chat.chat.commands.keys()],
    });
    assert.deepEqual(chat.controller.extensionCommands().map((c) => c.name), ["hello"]);
    await Deno.writeTextFile(file, extension("goodbye", "goodbye_tool"));
    await chat.send("/reload");
    await chat.waitFor("Reloaded: extension greet reloaded", { everywhere: true });
    assert.deepEqual(chat.controller.extensionCommands().map((c) => c.name), ["goodbye"]);
    const tools = chat.controller.agent.tools.map((t) => t.decl.name);
    assert.ok(tools.includes("goodbye_tool") && !tools.includes("hello_tool"), tools.join());
    await chat.send("/goodbye");
    await chat.waitFor("goodbye ran", { everywhere: true });
  });
});

Deno.test("/reload waits for the running turn, as /model does", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "The slow answer." }],
      headerDelayMs: 300,
    });
    await chat.send("slow question");
    await chat.waitFor("Working");
    await writeSkill(chat, "late");
    await chat.send("/reload");
    await chat.waitFor("before reloading");
    await chat.waitFor("The slow answer.");
    await chat.waitIdle();
    assert.deepEqual(chat.controller.resources.skills, []);
  });
});

Deno.test("/reload refuses a project config with untrusted risky settings, as the start-up does", async () => {
  await withChat(async (chat) => {
    await Deno.mkdir(join(chat.fixture.project, ".panto"));
    await Deno.writeTextFile(
      join(chat.fixture.project, ".panto", "config.json"),
      JSON.stringify({
        defaultModel: "smart",
        providers: { fakeopenai: { api: "openai-chat", baseUrl: "http://127.0.0.1:9/v1" } },
      }),
    );
    await chat.send("/reload");
    await chat.waitFor(/Reload failed, nothing changed[\s\S]*baseUrl/, { everywhere: true });
    assert.equal(chat.controller.config.defaultModel, "fast");
    assert.notEqual(chat.controller.config.providers.fakeopenai?.baseUrl, "http://127.0.0.1:9/v1");
  });
});

Deno.test("/reload refuses a project extension nobody trusted, keeping the loaded ones", async () => {
  await withChat(async (chat) => {
    const user = join(chat.fixture.home, "extensions");
    await Deno.mkdir(user);
    await Deno.writeTextFile(
      join(user, "mine.ts"),
      'export default (panto) => panto.registerCommand("mine", { description: "m", run: () => {} });\n',
    );
    await chat.controller.loadExtensions({
      mode: "interactive",
      uiEvents: chat.chat.uiEvents,
      notify: (text, level) => chat.chat.notify(text, level),
      submit: (text) => chat.chat.submit(text),
      reservedCommands: [...chat.chat.commands.keys()],
    });
    const project = join(chat.fixture.project, ".panto", "extensions");
    await Deno.mkdir(project, { recursive: true });
    await Deno.writeTextFile(join(project, "theirs.ts"), "export default () => {};\n");
    await Deno.writeTextFile(join(chat.fixture.project, "AGENTS.md"), "Rules.");
    await chat.send("/reload");
    await chat.waitFor(/Reload failed, nothing changed[\s\S]*theirs\.ts/, { everywhere: true });
    assert.deepEqual(chat.controller.extensionCommands().map((c) => c.name), ["mine"]);
    assert.deepEqual(chat.controller.contextFiles, []);
  });
});

Deno.test("/reload folds or shows thinking when hideThinkingBlock changes", async () => {
  await withChat(async (chat) => {
    await editConfig(chat, { hideThinkingBlock: true });
    await chat.send("/reload");
    await chat.waitFor("config: hideThinkingBlock", { everywhere: true });
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "thinking", thinking: "secret musing" }, { type: "text", text: "Done." }],
    });
    await chat.send("think");
    await chat.waitFor("Done.");
    assert.doesNotMatch(await chat.everything(), /secret musing/);
  });
});
