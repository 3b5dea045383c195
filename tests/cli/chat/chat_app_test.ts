/**
 * Screen tests of the interactive chat on a virtual terminal against the
 * fake LLM server: queued prompts, `!shell`, slash commands, `@file`
 * attachments, quit keys, provider errors and retries, thinking, parallel
 * tool calls and resuming. (The pty behaviour is in interactive_tmux_test.)
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
import { Conversation } from "@panto/lib";
import { authErrorReply, rateLimitReply } from "../../support/fake_llm_server.ts";
import { toolCallReply } from "../../support/fake_replies.ts";
import { TINY_PNG } from "./clipboard_fakes.ts";
import { allNodes } from "../../support/tree_nodes.ts";

const CTRL_A = "\x01";

function answer(chat: ChatHarness, text: string): void {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

/** The JSON body of request `index` (negative counts from the end). */
function requestBody(chat: ChatHarness, index: number): Record<string, unknown> {
  const request = chat.fixture.server.requests.at(index);
  assert.ok(request, `the fake server got request ${index}`);
  return request.body as Record<string, unknown>;
}

/** The last user message of request `index`, as JSON text. */
function lastUserMessage(chat: ChatHarness, index: number): string {
  const messages = requestBody(chat, index).messages as { role: string }[];
  const user = messages.findLast((message) => message.role === "user");
  assert.ok(user, `request ${index} has a user message`);
  return JSON.stringify(user);
}

/** Lines wrapped by the terminal joined back (wrapping happens at spaces). */
function flat(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** The input line: the text between the editor's two rules. */
function inputLine(screen: string): string {
  const lines = screen.split("\n");
  const rules = lines.flatMap((line, index) => /^─+$/.test(line) ? [index] : []);
  const [top, bottom] = rules.slice(-2);
  assert.ok(top !== undefined && bottom !== undefined, `the editor is on screen:\n${screen}`);
  return lines.slice(top + 1, bottom).join("\n").trim();
}

/** Asserts that `parts` appear in `text` in this order. */
function assertInOrder(text: string, parts: readonly string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    assert.ok(at >= 0, `"${part}" after position ${from} in:\n${text}`);
    from = at + part.length;
  }
}

Deno.test("chat: a prompt typed during a turn without tools is sent after it", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "First answer." }],
      headerDelayMs: 300,
    });
    answer(chat, "Second answer.");
    await chat.send("first prompt");
    await chat.waitFor("Working");
    await chat.send("second prompt");
    await chat.waitFor("steer › second prompt");
    const screen = await chat.waitFor("Second answer.");
    assert.doesNotMatch(screen, /steer ›/, "the pending area empties once it is sent");
    assertInOrder(screen, [
      "› first prompt",
      "First answer.",
      "› second prompt",
      "Second answer.",
    ]);
    assert.equal(chat.fixture.server.requests.length, 2);
    assert.doesNotMatch(JSON.stringify(requestBody(chat, 0)), /second prompt/);
    assert.match(lastUserMessage(chat, 1), /second prompt/);
    assert.match(JSON.stringify(requestBody(chat, 1)), /First answer\./);
  });
});

Deno.test("chat: !command shows its output and adds it to the next prompt only", async () => {
  await withChat(async (chat) => {
    await chat.send("!echo hello-from-shell");
    const screen = await chat.waitFor(/\$ echo hello-from-shell\n\s*hello-from-shell/);
    assert.doesNotMatch(screen, /Working/);
    assert.equal(chat.fixture.server.requests.length, 0, "a shell command asks no model");

    answer(chat, "It printed a greeting.");
    await chat.send("what did it print?");
    await chat.waitFor("It printed a greeting.");
    const prompt = lastUserMessage(chat, 0);
    assert.match(prompt, /<shell_output>/);
    assert.match(prompt, /hello-from-shell/);
    assert.match(prompt, /what did it print\?/);

    answer(chat, "Fine.");
    await chat.send("and now?");
    await chat.waitFor("Fine.");
    assert.doesNotMatch(lastUserMessage(chat, 1), /shell_output/);
  });
});

Deno.test("chat: /name before the first answer is applied once the session is saved", async () => {
  await withChat(async (chat) => {
    await chat.send("/name my-session");
    await chat.waitFor(/named "my-session" once it is saved/);
    answer(chat, "Hello.");
    await chat.send("hi");
    await chat.waitFor(`Session named "my-session".`);
    const [saved] = await chat.controller.store.list();
    assert.equal(saved?.name, "my-session");
    assert.equal(saved?.id, chat.chat.agent.sessionId);
  });
});

Deno.test("chat: /export writes the session as Markdown in the project", async () => {
  await withChat(async (chat) => {
    await chat.send("/export");
    await chat.waitFor("Nothing to export yet");
    answer(chat, "The export answer.");
    await chat.send("export question");
    await chat.waitFor("The export answer.");
    await chat.waitIdle();
    await chat.send("/export");
    const screen = flat(await chat.waitFor("Exported to"));
    const path = screen.match(/Exported to (\S+\.md)/)?.[1];
    assert.ok(path !== undefined, `the notice names the file: ${screen}`);
    assert.ok(path.startsWith(chat.fixture.project), `exported into the project: ${path}`);
    const markdown = await Deno.readTextFile(path);
    assertInOrder(markdown, ["export question", "The export answer."]);

    // An absolute path is taken as it is, not below the project.
    const elsewhere = join(chat.fixture.home, "exported.md");
    await chat.send(`/export ${elsewhere}`);
    await chat.waitFor(`Exported to ${elsewhere}`);
    assert.equal(await Deno.readTextFile(elsewhere), markdown);
  });
});

Deno.test("chat: /new starts a fresh session, /resume picks an old one and shows it", async () => {
  await withChat(async (chat) => {
    answer(chat, "Alpha answer.");
    await chat.send("alpha question");
    await chat.waitFor("Alpha answer.");
    await chat.waitIdle();
    const alphaId = chat.chat.agent.sessionId;

    await chat.send("/new");
    let screen = await chat.waitFor("New session.");
    assert.match(screen, /panto \d/, "the welcome is shown");
    assert.doesNotMatch(screen, /alpha question|Alpha answer/);
    assert.notEqual(chat.chat.agent.sessionId, alphaId);
    answer(chat, "Beta answer.");
    await chat.send("beta question");
    await chat.waitFor("Beta answer.");
    await chat.waitIdle();
    assert.doesNotMatch(JSON.stringify(requestBody(chat, -1)), /alpha question/);

    await chat.send("/resume");
    screen = await chat.waitFor("╭─ Sessions in");
    assert.match(screen, /alpha question/);
    assert.match(screen, /beta question/);
    const order = (await chat.controller.store.list()).map((session) => session.id);
    for (let i = 0; i < order.indexOf(alphaId); i++) await chat.press(KEYS.down);
    await chat.press(KEYS.enter);
    screen = await chat.waitFor(`Resumed session ${alphaId}`);
    assertInOrder(screen, ["panto", "› alpha question", "Alpha answer."]);
    assert.doesNotMatch(screen, /beta question|Beta answer|Sessions in/);
    assert.equal(chat.chat.agent.sessionId, alphaId);

    answer(chat, "Alpha again.");
    await chat.send("alpha follow-up");
    await chat.waitFor("Alpha again.");
    const body = JSON.stringify(requestBody(chat, -1));
    assert.match(body, /alpha question/);
    assert.doesNotMatch(body, /beta question/);
  });
});

Deno.test("chat: /new, /resume, /model and /thinking wait for the running turn", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "The slow answer." }],
      headerDelayMs: 300,
    });
    await chat.send("slow question");
    await chat.waitFor("Working");
    const sessionId = chat.chat.agent.sessionId;
    await chat.send("/new");
    await chat.waitFor("before starting a new session");
    await chat.send("/resume");
    await chat.waitFor("before switching sessions");
    // The answer under way would otherwise be recorded as the new model's.
    await chat.send("/model smart");
    await chat.waitFor("before switching models");
    await chat.send("/thinking high");
    await chat.waitFor("before changing the reasoning level");
    const screen = await chat.waitFor("The slow answer.");
    assertInOrder(screen, ["› slow question", "The slow answer."]);
    assert.doesNotMatch(screen, /New session\.|Sessions in|Model: smart|Thinking: high/);
    assert.equal(chat.chat.agent.sessionId, sessionId);
    assert.equal(chat.chat.agent.config.provider.model, "fast-model");
    assert.equal(chat.chat.agent.config.provider.reasoning, "off");
  });
});

Deno.test("chat: the banner of a new session goes through the session_start UI event", async () => {
  await withChat(async (chat) => {
    chat.chat.uiEvents.on("session_start", (event) => {
      const model = event.data.model;
      event.setComponent({
        render: () => [`CUSTOM BANNER for ${model}`],
        firstLineChanged: () => null,
        invalidate: () => {},
      });
    });
    await chat.send("/new");
    const screen = await chat.waitFor("New session.");
    assert.match(screen, /CUSTOM BANNER for fast/);
    assert.doesNotMatch(screen, /panto \d/);
  });
});

Deno.test("chat: /help lists the commands, an unknown command says so and keeps the line", async () => {
  await withChat(async (chat) => {
    await chat.send("/help");
    const screen = await chat.waitFor("/export");
    for (const name of ["model", "thinking", "compact", "resume", "new", "name", "copy", "quit"]) {
      assert.match(screen, new RegExp(`^/${name}\\s+\\S`, "m"), `/help lists /${name}`);
    }
    await chat.send("/foo bar baz");
    await chat.waitFor("Unknown command /foo. Type /help for the list");
    await chat.waitFor((screen) => inputLine(screen) === "/foo bar baz");
    assert.equal(chat.fixture.server.requests.length, 0);
  });
});

Deno.test("chat: /thinking sets the reasoning level sent to either API", async () => {
  await withChat(async (chat) => {
    answer(chat, "Zero.");
    await chat.send("q0");
    await chat.waitFor("Zero.");
    assert.equal(requestBody(chat, 0).reasoning_effort, undefined, "off by default");

    await chat.waitIdle(); // the answer is on screen before the turn has ended
    await chat.send("/thinking extreme");
    await chat.waitFor(/Unknown reasoning level "extreme"/);
    await chat.send("/thinking high");
    await chat.waitFor("Thinking: high");
    answer(chat, "One.");
    await chat.send("q1");
    await chat.waitFor("One.");
    assert.equal(requestBody(chat, 1).reasoning_effort, "high");

    // A model switch takes the alias's level (off here); the Anthropic API gets it in its terms.
    await chat.waitIdle(); // the answer is on screen before the turn has ended
    await chat.send("/model smart");
    await chat.waitFor("Model: smart");
    await chat.send("/thinking high");
    await chat.waitFor("· thinking high");
    answer(chat, "Two.");
    await chat.send("q2");
    await chat.waitFor("Two.");
    assert.equal(chat.fixture.server.requests[2]?.protocol, "anthropic");
    const thinking = requestBody(chat, 2).thinking as { type: string; budget_tokens: number };
    assert.equal(thinking.type, "enabled");
    assert.ok(thinking.budget_tokens > 0);
  });
});

Deno.test("chat: @file attaches the file to the prompt", async () => {
  await withChat(async (chat) => {
    await Deno.writeTextFile(projectPath(chat, "notes.txt"), "NOTE-CONTENT-123\n");
    answer(chat, "Summarised.");
    await chat.send("summarise @notes.txt please");
    const screen = await chat.waitFor("Summarised.");
    assertInOrder(screen, ["› summarise @notes.txt please", "Attached notes.txt", "Summarised."]);
    assert.match(lastUserMessage(chat, 0), /NOTE-CONTENT-123/);
  });
});

Deno.test("chat: ctrl+c clears or quits, ctrl+d quits only on an empty input", async () => {
  await withChat(async (chat) => {
    await chat.press(KEYS.ctrlC);
    await chat.waitFor("Press ctrl+c again to quit.");
    assert.equal(chat.quitCount, 0);
    await chat.press(KEYS.ctrlC);
    assert.equal(chat.quitCount, 1, "a second ctrl+c on an empty input quits");

    await chat.type("abc");
    await chat.press(CTRL_A, KEYS.ctrlD);
    await chat.waitFor((screen) => inputLine(screen) === "bc");
    assert.equal(chat.quitCount, 1, "ctrl+d with text does not quit");

    await chat.press(KEYS.ctrlC);
    await chat.waitFor((screen) => inputLine(screen) === "");
    assert.equal(chat.quitCount, 1, "ctrl+c with text does not quit");
    assert.equal(
      (await chat.screen()).split("Press ctrl+c again").length,
      2,
      "clearing shows no quit hint",
    );

    await chat.press(KEYS.ctrlD);
    assert.equal(chat.quitCount, 2, "ctrl+d on an empty input quits");
  });
});

Deno.test("chat: a provider error is shown clearly and the chat stays usable", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue(authErrorReply("openai"));
    await chat.send("hello");
    const screen = flat(await chat.waitFor("The request failed"));
    assert.match(screen, /The request failed \(auth\): .*401.*Incorrect API key provided/);
    await chat.waitIdle();

    // OpenAI's rate-limit message ends with a full stop of its own.
    chat.fixture.server.enqueue(rateLimitReply(0, "openai"));
    await chat.send("hello once more");
    const limited = flat(await chat.waitFor("The request failed (rate_limit)"));
    assert.match(limited, /Requested 385\.( |$)/, "no doubled full stop");
    await chat.waitIdle();

    answer(chat, "Recovered answer.");
    await chat.send("hello again");
    await chat.waitFor("Recovered answer.");
    assert.equal(chat.fixture.server.requests.length, 3);
  });
});

Deno.test("chat: a rate-limited request is retried with a notice", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue(rateLimitReply(0, "openai"));
    answer(chat, "Answer after the retry.");
    await chat.send("hello");
    const screen = await chat.waitFor("Answer after the retry.");
    assert.match(flat(screen), /Retrying \(1\/2\) in 0s: .*answered 429 .*Answer after/);
    assert.doesNotMatch(screen, /request failed/);
    assert.equal(chat.fixture.server.requests.length, 2);
  }, { config: { retry: { maxRetries: 2 } } });
});

Deno.test("chat: a stream cut mid-answer is retried and its partial text taken away", async () => {
  await withChat(async (chat) => {
    // An OpenAI stream that ends without a finish reason or [DONE]: cut short, retryable.
    const chunk = (delta: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: "cut", choices: [{ index: 0, delta }] })}\n\n`;
    const body = chunk({ role: "assistant", content: "" }) + chunk({ content: "PARTIAL-WORDS" }) +
      chunk({ content: " and more" });
    // The pause before the last chunk lets the partial text reach the screen.
    chat.fixture.server.enqueue({ kind: "slow", delayMs: 150, source: { kind: "sse", body } });
    answer(chat, "The complete answer.");
    await chat.send("hello");
    await chat.waitFor("PARTIAL-WORDS");
    const screen = await chat.waitFor("The complete answer.");
    assert.match(flat(screen), /Retrying \(1\/2\) in 0s: .*ended early/);
    assert.doesNotMatch(await chat.everything(), /PARTIAL-WORDS/, "the void attempt is gone");
    assert.equal(chat.fixture.server.requests.length, 2);
  }, { config: { retry: { maxRetries: 2, baseDelayMs: 0 } } });
});

Deno.test("chat: thinking is shown, ctrl+t hides and shows it again", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [
        { type: "thinking", thinking: "Pondering the question deeply." },
        { type: "text", text: "The considered answer." },
      ],
    });
    await chat.send("think first");
    let screen = await chat.waitFor("The considered answer.");
    assertInOrder(screen, ["› think first", "Pondering the question deeply.", "The considered"]);
    await chat.waitIdle();
    await chat.press(KEYS.ctrlT);
    screen = await chat.waitFor("Thinking hidden.");
    assert.doesNotMatch(screen, /Pondering/);
    assert.match(screen, /The considered answer\./);
    await chat.press(KEYS.ctrlT);
    await chat.waitFor("Thinking shown.");
    await chat.waitFor("Pondering the question deeply.");
  });
});

Deno.test("chat: parallel tool calls each get their own component and result", async () => {
  await withChat(async (chat) => {
    await Deno.writeTextFile(projectPath(chat, "a.txt"), "CONTENT-OF-A\n");
    await Deno.writeTextFile(projectPath(chat, "b.txt"), "CONTENT-OF-B\n");
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [
        { type: "tool_use", id: "call_a", name: "read", input: { path: "a.txt" } },
        { type: "tool_use", id: "call_b", name: "read", input: { path: "b.txt" } },
        { type: "tool_use", id: "call_c", name: "read", input: { path: "missing.txt" } },
      ],
    });
    answer(chat, "Read them all.");
    await chat.send("read the files");
    const screen = await chat.waitFor("Read them all.");
    assertInOrder(screen, [
      "read a.txt",
      "1 line (1-1)",
      "read b.txt",
      "1 line (1-1)",
      "read missing.txt",
      "missing.txt does not exist",
      "Read them all.",
    ]);
    const headers = screen.split("\n").filter((line) => /^. read \S+\.txt$/.test(line));
    assert.equal(headers.length, 3, "one component per call");
    assert.match(headers[0]!, /^✓/);
    assert.match(headers[1]!, /^✓/);
    assert.doesNotMatch(headers[2]!, /^✓/, "the failed call is marked as failed");
    const results = (requestBody(chat, 1).messages as { role: string; tool_call_id?: string }[])
      .filter((message) => message.role === "tool").map((message) => message.tool_call_id);
    assert.deepEqual(results.sort(), ["call_a", "call_b", "call_c"]);
  });
});

Deno.test("chat: -c shows the previous conversation before the prompt", async () => {
  const fixture = await createChatFixture();
  try {
    await Deno.writeTextFile(join(fixture.project, "notes.txt"), "remember-the-milk\n");
    const first = await openChat(fixture);
    try {
      fixture.server.enqueue({
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "notes.txt" } }],
      });
      answer(first, "The notes are about milk.");
      await first.send("what is in my notes?");
      await first.waitFor("The notes are about milk.");
      await first.waitIdle();
    } finally {
      await first.close();
    }

    const resumed = await openChat(fixture, { argv: ["-c"] });
    try {
      const screen = await resumed.waitFor("Resumed session");
      assertInOrder(screen, [
        "panto",
        "› what is in my notes?",
        "read notes.txt",
        "1 line (1-1)",
        "The notes are about milk.",
        `Resumed session ${resumed.chat.agent.sessionId}`,
        "─────",
      ]);
    } finally {
      await resumed.close();
    }
  } finally {
    await fixture.close();
  }
});

Deno.test("chat: prompts submitted at once run one after the other", async () => {
  await withChat(async (chat) => {
    answer(chat, "One.");
    answer(chat, "Two.");
    // As an extension's sendUserMessage can: the second arrives before the first has started.
    chat.chat.submit("first at once");
    chat.chat.submit("second at once");
    await chat.waitFor("Two.");
    await chat.waitIdle();
    assert.equal(chat.fixture.server.requests.length, 2);
    assert.match(lastUserMessage(chat, 0), /first at once/);
    assert.match(lastUserMessage(chat, 1), /second at once/);
    assert.doesNotMatch(await chat.everything(), /failed/);
  });
});

Deno.test("chat: a prompt typed during /compact is sent after it", async () => {
  await withChat(async (chat) => {
    answer(chat, "First answer.");
    await chat.send("first question");
    await chat.waitFor("First answer.");
    await chat.waitIdle();
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "THE SUMMARY" }],
      headerDelayMs: 300,
    });
    answer(chat, "After compaction.");
    await chat.send("/compact");
    await chat.waitFor("Compacting");
    await chat.send("typed while compacting");
    await chat.waitFor("steer › typed while compacting");
    await chat.waitFor("After compaction.");
    assert.equal(chat.fixture.server.requests.length, 3);
    assert.match(lastUserMessage(chat, 2), /typed while compacting/);
  });
});

Deno.test("chat: a /name given before /new is not applied to the new session", async () => {
  await withChat(async (chat) => {
    await chat.send("/name old-name");
    await chat.waitFor(/named "old-name" once it is saved/);
    await chat.send("/new");
    await chat.waitFor("New session.");
    answer(chat, "Hello.");
    await chat.send("hi");
    await chat.waitFor("Hello.");
    await chat.waitIdle();
    const sessions = await chat.controller.store.list();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.name, undefined);
    assert.doesNotMatch(await chat.everything(), /Session named/);
  });
});

Deno.test("chat: quitting during a turn drops queued prompts and saves the partial answer", async () => {
  await withChat(async (chat) => {
    const chunk = (delta: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: "q", choices: [{ index: 0, delta }] })}\n\n`;
    const body = chunk({ role: "assistant", content: "" }) + chunk({ content: "PARTIAL-WORDS" });
    // The server goes silent after the partial text, until the client leaves.
    chat.fixture.server.enqueue({
      kind: "stall",
      afterBytes: new TextEncoder().encode(body).length,
      source: { kind: "sse", body: body + chunk({ content: " never sent" }) },
    });
    await chat.send("hello");
    await chat.waitFor("PARTIAL-WORDS");
    await chat.send("queued before quitting");
    await chat.waitFor("steer › queued before quitting");
    await chat.press(KEYS.ctrlD);
    assert.equal(chat.quitCount, 1);
    await chat.chat.settled();
    assert.equal(chat.chat.busy, false);
    assert.equal(chat.fixture.server.requests.length, 1, "the queued prompt is not sent");
    const saved = await chat.controller.store.load(chat.chat.agent.sessionId);
    const last = saved?.messages.at(-1);
    assert.equal(last?.stopReason, "aborted");
    assert.match(JSON.stringify(last?.content), /PARTIAL-WORDS/);
  });
});

Deno.test("chat: the footer's cost prices each answer at its model, per session", async () => {
  await withChat(async (chat) => {
    answer(chat, "Priced answer.");
    await chat.send("hello");
    await chat.waitFor("Priced answer.");
    await chat.waitIdle();
    const cost = (screen: string) => screen.match(/\$(\d+\.\d{3})/)?.[1];
    // The footer repaints after the answer: wait for it rather than reading it once.
    const spent = cost(
      await chat.waitFor((screen) => cost(screen) !== undefined && cost(screen) !== "0.000"),
    );
    // A free model now does not make the earlier answer free.
    await chat.send("/model smart");
    await chat.waitFor("Model: smart");
    await chat.waitFor((screen) => /smart · thinking off/.test(screen));
    assert.equal(cost(await chat.screen()), spent);
    const sessionId = chat.chat.agent.sessionId;
    await chat.send("/new");
    await chat.waitFor((screen) => screen.includes("New session.") && cost(screen) === "0.000");
    // Resumed while on the free model: the session's own spending, at its own model.
    await chat.send(`/resume`);
    await chat.waitFor("╭─ Sessions in");
    await chat.press(KEYS.enter);
    await chat.waitFor((screen) => screen.includes(`Resumed session ${sessionId}`));
    await chat.waitFor((screen) => cost(screen) === spent);
  }, {
    config: {
      retry: { maxRetries: 0 },
      models: {
        fast: { provider: "fakeopenai", model: "fast-model", price: { input: 1000, output: 1000 } },
        smart: { provider: "fakeanthropic", model: "smart-model", price: { input: 0, output: 0 } },
      },
    },
  });
});

Deno.test("chat: /fork at the current point continues the conversation in a new session, the old one untouched", async () => {
  await withChat(async (chat) => {
    answer(chat, "Original answer.");
    await chat.send("original question");
    await chat.waitFor("Original answer.");
    await chat.waitIdle();
    const originalId = chat.chat.agent.sessionId;
    await chat.send("/fork");
    await chat.waitFor("Fork from (● active path)");
    await chat.press(KEYS.enter); // the current point: the whole conversation
    const screen = await chat.waitFor(/Forked into session \S+/);
    assertInOrder(screen, ["› original question", "Original answer.", "Forked into session"]);
    assert.notEqual(chat.chat.agent.sessionId, originalId);
    answer(chat, "Forked answer.");
    await chat.send("in the fork");
    await chat.waitFor("Forked answer.");
    await chat.waitIdle();
    assert.match(JSON.stringify(requestBody(chat, -1)), /original question/);
    const original = await chat.controller.store.load(originalId);
    assert.doesNotMatch(JSON.stringify(original?.messages), /in the fork/);
  });
});

Deno.test("chat: a !command typed during a turn is queued and run after it", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "Slow answer." }],
      headerDelayMs: 300,
    });
    await chat.send("slow question");
    await chat.waitFor("Working");
    await chat.send("!echo queued-shell-output");
    await chat.waitFor("follow-up › !echo queued-shell-output");
    const screen = await chat.waitFor(/\$ echo queued-shell-output\n\s*queued-shell-output/);
    assertInOrder(screen, ["Slow answer.", "$ echo queued-shell-output"]);
    await chat.waitIdle();
    answer(chat, "Got it.");
    await chat.send("what did it print?");
    await chat.waitFor("Got it.");
    assert.match(lastUserMessage(chat, 1), /queued-shell-output/);
  });
});

Deno.test("chat: a prompt chosen again comes back as typed, its pasted image above the editor", async () => {
  await withChat(async (chat) => {
    await Deno.writeTextFile(projectPath(chat, "notes.txt"), "NOTE-CONTENT-456\n");
    const typed = "compare with @notes.txt";
    const pasted = { type: "image", mediaType: "image/png", data: TINY_PNG.toBase64() } as const;
    answer(chat, "Compared.");
    await chat.controller.prompt(typed, { images: [pasted] });
    const { roots } = await chat.controller.sessionTree();
    const prompt = allNodes(roots).find((node) => node.preview === typed);
    assert.ok(prompt, "the prompt is in the tree");

    await chat.controller.branch(prompt.id);
    const screen = await chat.waitFor("The chosen prompt is in the editor");
    assert.equal(inputLine(screen), typed);
    assert.match(
      screen,
      new RegExp(`\\[image 1: ${TINY_PNG.length} B png\\] · sent with the next`),
    );
    answer(chat, "Compared again.");
    await chat.press(KEYS.enter);
    await chat.waitFor("Compared again.");
    await chat.waitIdle();
    const sent = lastUserMessage(chat, -1);
    assert.equal(sent.split(pasted.data).length - 1, 1, `the image sent once: ${sent}`);
    assert.equal(sent.split("NOTE-CONTENT-456").length - 1, 1, "the file attached again");
    assert.doesNotMatch(await chat.screen(), /sent with the next prompt/, "the image line is gone");

    // A resumed transcript shows prompts as typed too, not their files.
    await chat.controller.switchSession(chat.controller.session.id);
    const resumed = await chat.waitFor("Resumed session", { everywhere: true });
    assert.match(resumed, /compare with @notes\.txt/);
    assert.doesNotMatch(resumed, /NOTE-CONTENT-456/);
  });
});

Deno.test("chat: -c puts a last prompt that got no answer back in the editor", async () => {
  const fixture = await createChatFixture();
  try {
    const first = await openChat(fixture);
    try {
      answer(first, "Answered.");
      await first.send("answered question");
      await first.waitFor("Answered.");
      await first.waitIdle();
      // As a crash right after sending leaves it: the prompt saved, no answer.
      const message = new Conversation().addUserMessage("the lost question");
      await first.controller.store.appendMessages(first.chat.agent.sessionId, [
        { message, conversation: [message], toolsAvailable: [] },
      ]);
    } finally {
      await first.close();
    }
    const resumed = await openChat(fixture, { argv: ["-c"] });
    try {
      const screen = await resumed.waitFor("back in the editor");
      assert.equal(inputLine(screen), "the lost question");
      assert.doesNotMatch(JSON.stringify(resumed.chat.agent.conversation.messages), /lost/);
      answer(resumed, "Found.");
      await resumed.press(KEYS.enter);
      await resumed.waitFor("Found.");
      assert.match(lastUserMessage(resumed, -1), /the lost question/);
      assert.equal(resumed.controller.danglingPrompt, undefined);
    } finally {
      await resumed.close();
    }
  } finally {
    await fixture.close();
  }
});

Deno.test("chat: once its tools are done, the loader says the model is working, not the finished tool", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue(
      toolCallReply("call_1", "bash", { command: "true" }),
      // The model's next answer sends nothing until it is interrupted.
      { kind: "stall", afterBytes: 0, source: { kind: "sse", body: "" } },
    );
    await chat.send("run it");
    const screen = await chat.waitFor(/✓ bash \$ true[\s\S]*Working/);
    assert.doesNotMatch(screen, /Running bash/);
    await chat.press(KEYS.escape);
    await chat.waitFor("Interrupted");
  });
});
