/**
 * `/settings` on the virtual terminal: a change is written to the user's
 * config.json with its comments kept and reaches the running chat; a key is
 * bound by pressing it; a setting the project's file sets asks where to
 * save; a broken config.json is left alone with the place of the error.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import {
  type ChatFixture,
  type ChatHarness,
  createChatFixture,
  KEYS,
  openChat,
} from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";

const CTRL_N = "\x0e";

/** Runs `body` in a chat whose config.json starts with a comment (and `project` as the project's file). */
async function withSettingsChat(
  body: (chat: ChatHarness, fixture: ChatFixture) => Promise<void>,
  project?: string,
): Promise<void> {
  const fixture = await createChatFixture();
  try {
    const file = join(fixture.home, "config.json");
    await Deno.writeTextFile(file, `// my settings\n${await Deno.readTextFile(file)}\n`);
    if (project !== undefined) {
      await Deno.mkdir(join(fixture.project, ".panto"));
      await Deno.writeTextFile(join(fixture.project, ".panto", "config.json"), project);
    }
    const chat = await openChat(fixture, { columns: 160 });
    try {
      await body(chat, fixture);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
  }
}

/** Opens /settings, filters the list by `setting` and enters it. */
async function openSetting(chat: ChatHarness, setting: string): Promise<void> {
  await chat.send("/settings");
  await chat.waitFor("Auto-compaction");
  await chat.type(setting);
  await chat.press(KEYS.enter);
}

async function choose(chat: ChatHarness, waitFor: string, filter: string): Promise<void> {
  await chat.waitFor(waitFor);
  await chat.type(filter);
  await chat.press(KEYS.enter);
}

/** Waits for the settings list to be back after a change, and leaves it (its loop ends). */
async function leaveSettings(chat: ChatHarness): Promise<void> {
  await chat.waitFor("╭─ Settings");
  await chat.press(KEYS.escape);
  await chat.waitFor((screen) => !screen.includes("╭─ Settings"));
}

function userConfig(fixture: ChatFixture): Promise<string> {
  return Deno.readTextFile(join(fixture.home, "config.json"));
}

Deno.test("/settings turns auto-compaction off in config.json, comments kept, and in the chat at once", async () => {
  await withSettingsChat(async (chat, fixture) => {
    assert.notEqual(chat.controller.agent.config.compaction?.enabled, false);
    await openSetting(chat, "auto");
    await choose(chat, "Compact automatically", "off");
    await chat.waitFor(/Auto-compaction: off, saved in .*config\.json; applies now/, {
      everywhere: true,
    });
    const text = await userConfig(fixture);
    assert.match(text, /^\/\/ my settings\n/);
    assert.deepEqual(JSON.parse(text.replace(/^\/\/.*\n/, "")).compaction, { enabled: false });
    assert.equal(chat.controller.agent.config.compaction?.enabled, false);
    // The list shows the new value and where it is set; esc leaves it.
    await chat.waitFor(/Auto-compaction\s+off · .*config\.json/);
    await leaveSettings(chat);
  });
});

Deno.test("/settings binds a key by pressing it, for the chat at once", async () => {
  await withSettingsChat(async (chat, fixture) => {
    await openSetting(chat, "keys");
    await choose(chat, "choose an action", "app.nextModel");
    await choose(chat, "Keys of app.nextModel: ctrl+p", "Press");
    await chat.waitFor("Press the key");
    await chat.type("x");
    await chat.waitFor("x types text; use ctrl or alt with it");
    await chat.press(CTRL_N);
    await chat.waitFor(/Editor keys: ctrl\+n, saved in .*; applies now/, { everywhere: true });
    assert.deepEqual(chat.tui.keybindings.keys("app.nextModel"), ["ctrl+n"]);
    assert.match(
      await userConfig(fixture),
      /"keybindings": \{\n\s+"app\.nextModel": \[\n?\s*"ctrl\+n"/,
    );
    await leaveSettings(chat);
    await chat.press(CTRL_N);
    await chat.waitFor("Model smart");
  });
});

Deno.test("/settings names the other action a new key is bound to", async () => {
  await withSettingsChat(async (chat) => {
    await openSetting(chat, "keys");
    await choose(chat, "choose an action", "app.nextModel");
    await choose(chat, "Keys of app.nextModel", "Add");
    await chat.waitFor("Press the key");
    await chat.press("\x07");
    await chat.waitFor(
      /Editor keys: ctrl\+p, ctrl\+g, saved in .*; applies now; ctrl\+g is also\s+bound to app\.externalEditor/,
      { everywhere: true },
    );
    assert.deepEqual(chat.tui.keybindings.keys("app.nextModel"), ["ctrl+p", "ctrl+g"]);
    await leaveSettings(chat);
  });
});

Deno.test("a config's hideThinkingBlock starts the chat with thinking folded", async () => {
  await withSettingsChat(async (chat, fixture) => {
    fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "thinking", thinking: "Secret pondering.", signature: "s" }, {
        type: "text",
        text: "The answer.",
      }],
    });
    await chat.send("a question");
    await chat.waitFor("The answer.");
    assert.doesNotMatch(await chat.screen(), /Secret pondering/);
  }, '{ "hideThinkingBlock": true }\n');
});

Deno.test("/settings ticks tool approvals in a checklist; the project's entries add up", async () => {
  await withSettingsChat(async (chat, fixture) => {
    await openSetting(chat, "approvals");
    await choose(chat, "[x] bash", "bash");
    await choose(chat, "[ ] bash", "write");
    await chat.waitFor("[x] write");
    await chat.type("Done");
    await chat.press(KEYS.enter);
    await choose(chat, "both files' entries apply", fixture.home);
    await chat.waitFor(/Tool approvals: write, saved in .*; applies to the next tool call/, {
      everywhere: true,
    });
    const saved = JSON.parse((await userConfig(fixture)).replace(/^\/\/.*\n/, ""));
    assert.deepEqual(saved.tools, { requireApproval: ["write"] });
    assert.deepEqual(chat.controller.config.tools.requireApproval, ["write", "bash"]);
    await leaveSettings(chat);
  }, '{ "tools": { "requireApproval": ["bash"] } }\n');
});

Deno.test("/settings sets the default thinking level and this chat's level", async () => {
  await withSettingsChat(async (chat, fixture) => {
    await openSetting(chat, "default think");
    await choose(chat, "Default thinking level", "high");
    await chat.waitFor(/Default thinking: high, saved in .*; this chat now thinks at high/, {
      everywhere: true,
    });
    assert.equal(chat.controller.model.provider.reasoning, "high");
    assert.match(await userConfig(fixture), /"defaultThinkingLevel": "high"/);
    await leaveSettings(chat);
  });
});

Deno.test("/settings asks where to save a setting the project's file sets, and says the project still wins", async () => {
  await withSettingsChat(async (chat, fixture) => {
    await chat.waitFor("fast");
    await openSetting(chat, "thinking blocks");
    await choose(chat, "Thinking blocks", "shown");
    await chat.waitFor(/Thinking blocks is also set in .*\.panto\/config\.json: save it in/);
    await chat.type(fixture.home);
    await chat.press(KEYS.enter);
    await chat.waitFor(/still sets it\s+here, so this chat keeps it/, { everywhere: true });
    assert.match(await userConfig(fixture), /"hideThinkingBlock": false/);
    const project = await Deno.readTextFile(join(fixture.project, ".panto", "config.json"));
    assert.equal(project, '{ "hideThinkingBlock": true }\n');
    await leaveSettings(chat);
  }, '{ "hideThinkingBlock": true }\n');
});

Deno.test("/settings leaves a config.json that no longer parses alone and says where it is broken", async () => {
  await withSettingsChat(async (chat, fixture) => {
    const file = join(fixture.home, "config.json");
    const broken = `${await Deno.readTextFile(file)}\n}`;
    await Deno.writeTextFile(file, broken);
    await openSetting(chat, "auto");
    await choose(chat, "Compact automatically", "off");
    await chat.waitFor(/Auto-compaction not saved: .*config\.json:\d+:\d+: invalid JSON/, {
      everywhere: true,
    });
    assert.equal(await Deno.readTextFile(file), broken);
    await leaveSettings(chat);
  });
});
