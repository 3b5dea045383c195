/**
 * The chat with only a provider's key set and no model configured (the
 * provider pointed at the fake server): the catalog's default model runs,
 * ctrl+p cycles the provider's default set, shift+tab offers the levels the
 * model takes, the footer shows the context used, /model lists the
 * provider's catalog models, and an image to a text-only model is a notice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { type ChatFixture, KEYS, openChat } from "./chat_harness.ts";
import { TINY_PNG } from "./clipboard_fakes.ts";

/** A key variable of this test alone: tests in parallel share this process's environment. */
const KEY_VARIABLE = "PANTO_TEST_CATALOG_KEY";

/** Anthropic and Groq, both at the fake server. */
function anthropicAndGroq(server: FakeLlmServer): Record<string, unknown> {
  return {
    anthropic: {
      api: "anthropic-messages",
      baseUrl: server.anthropicBaseUrl,
      apiKeyEnv: KEY_VARIABLE,
    },
    groq: { api: "openai-chat", baseUrl: server.openaiBaseUrl, apiKeyEnv: KEY_VARIABLE },
  };
}

async function catalogFixture(
  providers: (server: FakeLlmServer) => Record<string, unknown> = anthropicAndGroq,
): Promise<ChatFixture> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-catalog-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-catalog-project-" });
  await Deno.writeTextFile(
    join(home, "config.json"),
    JSON.stringify({ providers: providers(server), retry: { maxRetries: 0 } }),
  );
  return {
    server,
    home,
    project,
    close: async () => {
      await server.close();
      await Deno.remove(home, { recursive: true });
      await Deno.remove(project, { recursive: true });
    },
  };
}

Deno.test("chat with only a key: the catalog's default model, ctrl+p over the provider's defaults, its levels, context in the footer, /model lists its models", async () => {
  Deno.env.set(KEY_VARIABLE, "sk-test-catalog");
  const fixture = await catalogFixture();
  try {
    const chat = await openChat(fixture, { rows: 40 });
    try {
      await chat.waitFor("claude-sonnet-4-6");
      fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Hello there." }] });
      await chat.send("hi");
      await chat.waitFor(/Hello there\.[\s\S]*\d+% ctx/);
      await chat.waitIdle();
      const sent = fixture.server.requests[0]!.body as { model: string };
      assert.equal(sent.model, "claude-sonnet-4-6");

      await chat.press("\x10"); // ctrl+p
      await chat.waitFor("claude-opus-4-7");
      for (const level of ["minimal", "low", "medium", "high", "xhigh", "off"]) {
        await chat.press("\x1b[Z"); // shift+tab
        await chat.waitFor(new RegExp(`thinking ${level}`));
      }

      await chat.send("/model");
      await chat.waitFor(/anthropic\/claude-haiku-4-5/);
      await chat.type("gpt-oss-120b");
      await chat.waitFor(/groq\/openai\/gpt-oss-120b/);
      await chat.press(KEYS.enter);
      await chat.waitFor(/Model: groq\/openai\/gpt-oss-120b/);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
    Deno.env.delete(KEY_VARIABLE);
  }
});

Deno.test("chat: /model with a name that is no model opens the picker filtered by it (as pi)", async () => {
  Deno.env.set(KEY_VARIABLE, "sk-test-catalog");
  const fixture = await catalogFixture();
  try {
    const chat = await openChat(fixture, { rows: 40 });
    try {
      await chat.waitFor("claude-sonnet-4-6");
      await chat.send("/model haiku");
      const list = await chat.waitFor(/anthropic\/claude-haiku-4-5/);
      assert.ok(!list.includes("claude-opus-4-7"), "the list is filtered by the name");
      await chat.press(KEYS.enter);
      await chat.waitFor(/Model: anthropic\/claude-[\w.-]*haiku/);
      await chat.send("/model anthropic/claude-opus-4-7");
      // An exact name switches at once.
      await chat.waitFor(/Model: anthropic\/claude-opus-4-7/);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
    Deno.env.delete(KEY_VARIABLE);
  }
});

Deno.test("chat: an image sent to a model that takes text only is a notice, and the model gets a note instead", async () => {
  Deno.env.set(KEY_VARIABLE, "sk-test-catalog");
  const fixture = await catalogFixture();
  try {
    await Deno.writeFile(join(fixture.project, "pic.png"), TINY_PNG);
    const chat = await openChat(fixture, { argv: ["-m", "groq/openai/gpt-oss-120b"] });
    try {
      fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "I see text." }] });
      await chat.send("look at @pic.png");
      await chat.waitFor(/takes text only: the image is not sent/);
      await chat.waitFor("I see text.");
      const body = JSON.stringify(fixture.server.requests[0]!.body);
      assert.ok(!body.includes("image_url"), "no image went to the server");
      assert.match(body, /image omitted: openai\/gpt-oss-120b takes text only/);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
    Deno.env.delete(KEY_VARIABLE);
  }
});

Deno.test("chat with only a Gemini key: Google's default model streams, thinks at its levels, and /model lists Gemini models", async () => {
  Deno.env.set(KEY_VARIABLE, "sk-test-catalog");
  const fixture = await catalogFixture((server) => ({
    google: {
      api: "google-generative-ai",
      baseUrl: `${server.url}/v1beta`,
      apiKeyEnv: KEY_VARIABLE,
    },
  }));
  try {
    const chat = await openChat(fixture, { rows: 40 });
    try {
      await chat.waitFor("gemini-3.1-pro-preview");
      fixture.server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: "Hello from Gemini." }],
      });
      await chat.send("hi");
      await chat.waitFor(/Hello from Gemini\.[\s\S]*\d+% ctx/);
      await chat.waitIdle();
      assert.match(fixture.server.requests[0]!.path, /models\/gemini-3\.1-pro-preview:/);
      await chat.press("\x1b[Z"); // shift+tab
      await chat.waitFor(/thinking low/);
      await chat.send("/model");
      await chat.type("2.5-flash");
      await chat.waitFor(/google\/gemini-2\.5-flash/);
      await chat.press(KEYS.escape);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
    Deno.env.delete(KEY_VARIABLE);
  }
});
