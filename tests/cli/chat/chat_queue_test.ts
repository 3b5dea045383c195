/**
 * Screen tests of the chat's queue (steer, follow-up, the pending area,
 * esc and alt+up), model and thinking keys, and the editor's small things
 * (transient quit hint, absolute paths, typed `@file`, the start-up header,
 * `-c`'s model), on a virtual terminal against the fake LLM server.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import {
  type ChatHarness,
  createChatFixture,
  KEYS,
  openChat,
  projectPath,
  withChat,
} from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";

const ALT_ENTER = "\x1b\r";
const ALT_UP = "\x1b[1;3A";
const CTRL_P = "\x10";
/** shift+ctrl+p as the Kitty keyboard protocol sends it. */
const SHIFT_CTRL_P = "\x1b[112;6u";
const SHIFT_TAB = "\x1b[Z";

function answer(chat: ChatHarness, text: string, headerDelayMs = 0): void {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text }], headerDelayMs });
}

/** The user messages of request `index`, as JSON texts. */
function userMessages(chat: ChatHarness, index: number): string[] {
  const request = chat.fixture.server.requests.at(index);
  assert.ok(request, `the fake server got request ${index}`);
  const messages = (request.body as { messages: { role: string }[] }).messages;
  return messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m));
}

/** The input: the text between the editor's two rules. */
function inputLine(screen: string): string {
  const lines = screen.split("\n");
  const rules = lines.flatMap((line, index) => /^─+$/.test(line) ? [index] : []);
  const [top, bottom] = rules.slice(-2);
  assert.ok(top !== undefined && bottom !== undefined, `the editor is on screen:\n${screen}`);
  return lines.slice(top + 1, bottom).join("\n").trim();
}

/** The footer's model part, e.g. "fast · thinking off" (its usage line is the last with "↑"). */
function footerModel(screen: string): string | undefined {
  const usage = screen.split("\n").findLast((line) => line.startsWith("↑"));
  return usage?.match(/(\S+ · thinking \w+)$/)?.[1];
}

Deno.test("queue: enter during a turn steers it at the next tool boundary", async () => {
  await withChat(async (chat) => {
    await Deno.writeTextFile(projectPath(chat, "a.txt"), "A\n");
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "a.txt" } }],
      headerDelayMs: 400,
    });
    answer(chat, "Steered answer.");
    await chat.send("read a.txt");
    await chat.waitFor("Working");
    await chat.send("also mention bananas");
    await chat.waitFor("steer › also mention bananas");
    const screen = await chat.waitFor("Steered answer.");
    assert.doesNotMatch(screen, /steer ›/);
    assert.match(screen, /› also mention bananas[\s\S]*Steered answer\./);
    await chat.waitIdle();
    assert.equal(chat.fixture.server.requests.length, 2, "no run of its own");
    assert.match(userMessages(chat, 1).at(-1)!, /also mention bananas/);
    assert.ok(!userMessages(chat, 0).some((m) => m.includes("bananas")));
  });
});

Deno.test("queue: alt+enter during a turn is a follow-up, sent as its own run after it", async () => {
  await withChat(async (chat) => {
    answer(chat, "First.", 400);
    answer(chat, "Second.");
    await chat.send("first");
    await chat.waitFor("Working");
    await chat.type("afterwards please");
    await chat.press(ALT_ENTER);
    await chat.waitFor("follow-up › afterwards please");
    assert.equal(inputLine(await chat.screen()), "", "the editor is emptied");
    await chat.waitFor("Second.");
    await chat.waitIdle();
    assert.equal(chat.fixture.server.requests.length, 2);
    assert.match(userMessages(chat, 1).at(-1)!, /afterwards please/);
    assert.doesNotMatch(await chat.screen(), /follow-up ›/);
  });
});

Deno.test("queue: alt+enter when idle is a newline in the editor", async () => {
  await withChat(async (chat) => {
    await chat.type("line one");
    await chat.press(ALT_ENTER);
    await chat.type("line two");
    await chat.waitFor((screen) => inputLine(screen) === "line one\nline two");
    assert.equal(chat.fixture.server.requests.length, 0);
  });
});

Deno.test("queue: esc interrupts and puts queued prompts back in the editor unsent", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
    await chat.send("go on forever");
    await chat.waitFor("Working");
    await chat.send("steer this");
    await chat.type("later this");
    await chat.press(ALT_ENTER);
    await chat.waitFor("follow-up › later this");
    await chat.type("half typed");
    // Esc once text streams: before it, the prompt got no answer (chat_interrupted_prompt_test).
    await chat.waitFor(/^line \d+$/m);
    await chat.press(KEYS.escape);
    await chat.waitIdle();
    const screen = await chat.waitFor("Interrupted. The partial answer was kept.");
    assert.doesNotMatch(screen, /steer ›|follow-up ›/);
    assert.equal(inputLine(screen), "steer this\n\nlater this\n\nhalf typed");
    // Idle with an empty queue: nothing is left that could still be sent.
    assert.deepEqual(chat.controller.queue, { steering: [], followUp: [] });
    assert.equal(chat.fixture.server.requests.length, 1, "nothing queued was sent");
  });
});

Deno.test("queue: alt+up takes the last queued prompt back to edit", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
    await chat.send("busy");
    await chat.waitFor("Working");
    await chat.send("first steer");
    await chat.type("a follow-up");
    await chat.press(ALT_ENTER);
    await chat.send("second steer");
    await chat.waitFor("steer › second steer");
    await chat.press(ALT_UP);
    let screen = await chat.waitFor((s) => inputLine(s) === "second steer");
    assert.doesNotMatch(screen, /steer › second steer/);
    assert.match(screen, /steer › first steer/);
    await chat.press(ALT_UP);
    screen = await chat.waitFor((s) => inputLine(s) === "a follow-up\n\nsecond steer");
    assert.doesNotMatch(screen, /follow-up ›/);
    assert.deepEqual(chat.controller.queue, { steering: ["first steer"], followUp: [] });
  });
});

Deno.test("models: ctrl+p and shift+ctrl+p cycle cycleModels, used by the next request", async () => {
  await withChat(async (chat) => {
    await chat.waitFor((s) => footerModel(s) === "fast · thinking off");
    await chat.press(CTRL_P);
    await chat.waitFor((s) => footerModel(s) === "deep · thinking high");
    await chat.waitFor("Model deep (smart-model) · thinking high");
    answer(chat, "From deep.");
    await chat.send("which model?");
    await chat.waitFor("From deep.");
    await chat.waitIdle();
    const request = chat.fixture.server.requests[0]!;
    assert.equal(request.protocol, "anthropic");
    assert.equal((request.body as { thinking?: { type: string } }).thinking?.type, "enabled");
    // "smart" is not in cycleModels: the next after "deep" is "fast" again.
    await chat.press(CTRL_P);
    await chat.waitFor((s) => footerModel(s) === "fast · thinking off");
    await chat.press(SHIFT_CTRL_P);
    await chat.waitFor((s) => footerModel(s) === "deep · thinking high");
  }, {
    config: {
      retry: { maxRetries: 0 },
      models: {
        fast: { provider: "fakeopenai", model: "fast-model" },
        smart: { provider: "fakeanthropic", model: "smart-model" },
        deep: { provider: "fakeanthropic", model: "smart-model", reasoning: "high" },
      },
      cycleModels: ["fast", "deep"],
    },
  });
});

Deno.test("models: /model ALIAS applies the alias's reasoning level", async () => {
  await withChat(async (chat) => {
    await chat.send("/thinking low");
    await chat.waitFor((s) => footerModel(s) === "fast · thinking low");
    await chat.send("/model deep");
    await chat.waitFor((s) => footerModel(s) === "deep · thinking high");
    await chat.send("/model fast");
    await chat.waitFor((s) => footerModel(s) === "fast · thinking off");
  }, {
    config: {
      retry: { maxRetries: 0 },
      models: {
        fast: { provider: "fakeopenai", model: "fast-model" },
        deep: { provider: "fakeanthropic", model: "smart-model", reasoning: "high" },
      },
    },
  });
});

Deno.test("models: shift+tab cycles the thinking level, sent with the next request", async () => {
  await withChat(async (chat) => {
    await chat.press(SHIFT_TAB);
    await chat.waitFor((s) => footerModel(s) === "fast · thinking low");
    await chat.press(SHIFT_TAB);
    await chat.waitFor((s) => footerModel(s) === "fast · thinking medium");
    answer(chat, "Thought.");
    await chat.send("think");
    await chat.waitFor("Thought.");
    await chat.waitIdle();
    const body = chat.fixture.server.requests[0]!.body as { reasoning_effort?: string };
    assert.equal(body.reasoning_effort, "medium");
  });
});

Deno.test("models: ctrl+p while a turn runs waits, and says so", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
    await chat.send("busy");
    await chat.waitFor("Working");
    await chat.press(CTRL_P);
    await chat.waitFor("before switching");
    assert.equal(chat.controller.model.alias, "fast");
  });
});

Deno.test("editor: the ctrl+c quit hint goes away by itself", async () => {
  await withChat(async (chat) => {
    await chat.press(KEYS.ctrlC);
    await chat.waitFor("Press ctrl+c again to quit.");
    await chat.waitFor((s) => !s.includes("Press ctrl+c again"), { timeoutMs: 5000 });
    assert.doesNotMatch(await chat.everything(), /Press ctrl\+c again/);
    assert.equal(chat.quitCount, 0);
  });
});

Deno.test("editor: a prompt starting with an absolute path is sent as a prompt", async () => {
  await withChat(async (chat) => {
    answer(chat, "It finds programs.");
    await chat.send("/usr/bin/env is what?");
    await chat.waitFor("It finds programs.");
    assert.match(userMessages(chat, 0).at(-1)!, /\/usr\/bin\/env is what\?/);
    assert.doesNotMatch(await chat.screen(), /Unknown command/);
  });
});

Deno.test("editor: enter on a fully typed @file sends the prompt at once", async () => {
  await withChat(async (chat) => {
    await Deno.writeTextFile(projectPath(chat, "notes.txt"), "NOTE-42\n");
    answer(chat, "Read your notes.");
    await chat.type("look at @notes.txt");
    await chat.press(KEYS.enter);
    await chat.waitFor("Read your notes.");
    assert.match(userMessages(chat, 0).at(-1)!, /NOTE-42/);
  });
});

Deno.test("header: lists the AGENTS.md files loaded", async () => {
  const fixture = await createChatFixture();
  try {
    await Deno.writeTextFile(join(fixture.project, "AGENTS.md"), "Be brief.\n");
    const chat = await openChat(fixture);
    try {
      await chat.waitFor(/^context AGENTS\.md$/m);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
  }
});

Deno.test("-c: resumes the session's own model and level, or says which it uses", async () => {
  const fixture = await createChatFixture();
  try {
    const first = await openChat(fixture);
    try {
      await first.send("/model smart");
      await first.send("/thinking high");
      await first.waitFor((s) => footerModel(s) === "smart · thinking high");
      answer(first, "Noted.");
      await first.send("remember");
      await first.waitFor("Noted.");
      await first.waitIdle();
    } finally {
      await first.close();
    }
    const resumed = await openChat(fixture, { argv: ["-c"] });
    try {
      await resumed.waitFor((s) => footerModel(s) === "smart · thinking high");
    } finally {
      await resumed.close();
    }
    // The alias is gone from the config: the default is used, and the user told.
    const config = JSON.parse(await Deno.readTextFile(join(fixture.home, "config.json")));
    delete config.models.smart;
    await Deno.writeTextFile(join(fixture.home, "config.json"), JSON.stringify(config));
    const fallback = await openChat(fixture, { argv: ["-c"] });
    try {
      assert.equal(fallback.controller.model.alias, "fast");
      assert.ok(
        fallback.controller.notices.some((n) =>
          n.includes("smart-model") && n.includes("using fast (fast-model, thinking off)")
        ),
        fallback.controller.notices.join("\n"),
      );
    } finally {
      await fallback.close();
    }
  } finally {
    await fixture.close();
  }
});

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

Deno.test("editor: ctrl+g edits the input in $VISUAL and reads it back; the draft file is gone", async () => {
  await withChat(async (chat) => {
    await chat.type("a draft prompt");
    await chat.press("\x07");
    await chat.waitFor((screen) => inputLine(screen) === "a final prompt");
    assert.equal(chat.fixture.server.requests.length, 0);
    const drafts = await Array.fromAsync(Deno.readDir(join(chat.fixture.home, "drafts")));
    assert.deepEqual(drafts, [], "the draft's directory is removed");
  }, { externalEnv: { PATH, VISUAL: "sed -i s/draft/final/" } });
});

Deno.test("editor: an editor that fails leaves the input as it was, and says so", async () => {
  await withChat(async (chat) => {
    await chat.type("a draft prompt");
    await chat.press("\x07");
    await chat.waitFor("false exited with code 1: your input is unchanged");
    assert.equal(inputLine(await chat.screen()), "a draft prompt");
  }, { externalEnv: { PATH, VISUAL: "false" } });
});

Deno.test("queue: a prompt submitted as a follow-up (an extension's) waits for the turn", async () => {
  await withChat(async (chat) => {
    answer(chat, "First.", 300);
    answer(chat, "Second.");
    await chat.send("first");
    await chat.waitFor("Working");
    chat.chat.submit("from an extension", "followUp");
    await chat.waitFor("follow-up › from an extension");
    await chat.waitFor("Second.");
    await chat.waitIdle();
    assert.equal(chat.fixture.server.requests.length, 2);
    assert.match(userMessages(chat, 1).at(-1)!, /from an extension/);
  });
});
