import assert from "node:assert/strict";
import { join } from "node:path";
import { Conversation } from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { withFakeHome, writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";

const KEY = "sk-test-SECRET-print-mode-42";

for (const api of ["anthropic-messages", "openai-chat"] as const) {
  const keyEnv = api === "anthropic-messages" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";

  Deno.test(`panto -p (${api}): reads a file with the read tool and prints the final answer`, async () => {
    const project = await Deno.makeTempDir();
    const server = await FakeLlmServer.start();
    try {
      await Deno.writeTextFile(join(project, "notes.txt"), "alpha\nbeta\n");
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "notes.txt" } }],
      });
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: "The file lists alpha and beta." }],
      });
      const baseUrl = api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl;
      const run = await runPanto([
        "-p",
        "What is in notes.txt?",
        "--api",
        api,
        "--base-url",
        baseUrl,
        "--model",
        "m1",
      ], {
        cwd: project,
        env: { [keyEnv]: KEY },
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "The file lists alpha and beta.\n");
      assert.equal(server.requests.length, 2);
      const followUp = JSON.stringify(server.requests[1]!.body);
      assert.match(
        followUp,
        /1\\talpha/,
        "the tool result with line numbers went back to the model",
      );
      const auth = api === "anthropic-messages"
        ? server.requests[0]!.headers["x-api-key"]
        : server.requests[0]!.headers["authorization"];
      assert.ok(auth?.includes(KEY), "the key from the environment is sent");
    } finally {
      await server.close();
      await Deno.remove(project, { recursive: true });
    }
  });

  Deno.test(`panto -p (${api}): --mode json writes every event as one JSON line`, async () => {
    const server = await FakeLlmServer.start();
    try {
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "hi there" }] });
      const baseUrl = api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl;
      const run = await runPanto([
        "-p",
        "--mode",
        "json",
        "--api",
        api,
        "--base-url",
        baseUrl,
        "-m",
        "m1",
      ], {
        env: { [keyEnv]: KEY },
        stdin: "hello from stdin",
      });
      assert.equal(run.code, 0, run.stderr);
      const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
      const types = events.map((e) => e.type);
      assert.ok(types.includes("block_start") && types.includes("content_delta"));
      assert.equal(types.at(-1), "run_complete");
      const text = events.filter((e) => e.type === "content_delta").map((e) => e.text).join("");
      assert.equal(text, "hi there");
      assert.match(
        JSON.stringify(server.requests[0]!.body),
        /hello from stdin/,
        "piped stdin is the prompt",
      );
    } finally {
      await server.close();
    }
  });

  Deno.test(`panto -p (${api}): a server error exits 1 with the server's message and no key`, async () => {
    const server = await FakeLlmServer.start();
    try {
      server.enqueue({
        kind: "http_error",
        status: 401,
        body: { error: { message: "invalid x-api-key", type: "authentication_error" } },
      });
      const baseUrl = api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl;
      const run = await runPanto(["-p", "hi", "--api", api, "--base-url", baseUrl, "-m", "m1"], {
        env: { [keyEnv]: KEY },
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /invalid x-api-key/);
      assert.match(run.stderr, /401/);
      assert.ok(!run.stderr.includes(KEY) && !run.stdout.includes(KEY));
    } finally {
      await server.close();
    }
  });
}

Deno.test("panto -p: usage errors exit 2 and say how to fix them", async () => {
  const noModel = await runPanto(["-p", "hi"]);
  assert.equal(noModel.code, 2);
  assert.match(noModel.stderr, /No model chosen: pass -m ALIAS or -m provider\/model/);

  const badApi = await runPanto(["-p", "hi", "--api", "grpc", "-m", "x"]);
  assert.equal(badApi.code, 2);
  assert.match(badApi.stderr, /--api/);

  const noKey = await runPanto(["-p", "hi", "-m", "claude-x", "--api", "anthropic-messages"]);
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /No API key for api\.anthropic\.com: set ANTHROPIC_API_KEY/);

  const badUrl = await runPanto(["-p", "hi", "-m", "x", "--base-url", "ftp://x"]);
  assert.equal(badUrl.code, 2);
  assert.match(badUrl.stderr, /--base-url "ftp:\/\/x" is not an http\(s\) URL/);

  const noPrompt = await runPanto(["-p", "-m", "x", "--base-url", "http://127.0.0.1:9/v1"]);
  assert.equal(noPrompt.code, 2);
  assert.match(noPrompt.stderr, /No prompt/);
});

Deno.test("panto --version and --help exit 0", async () => {
  const version = await runPanto(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  const help = await runPanto(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--model/);
});

Deno.test("panto -p -e: an extension's tool is offered and runs; one that throws is reported and skipped", async () => {
  const project = await Deno.makeTempDir();
  const server = await FakeLlmServer.start();
  const example = new URL("../../../examples/extensions/word_count.ts", import.meta.url).pathname;
  const broken = new URL("../extensions/fixtures/throws_sync.ts", import.meta.url).pathname;
  try {
    await Deno.writeTextFile(join(project, "essay.txt"), "one two three\nfour five\n");
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "c1", name: "word_count", input: { path: "essay.txt" } }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Five words." }] });
    const run = await runPanto(
      [
        "-p",
        "count",
        "-e",
        example,
        "-e",
        broken,
        "--api",
        "openai-chat",
        "--base-url",
        server.openaiBaseUrl,
        "-m",
        "m",
      ],
      { cwd: project },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Five words.\n");
    assert.match(run.stderr, /throws_sync/, "the failing extension is named");
    const offered = JSON.stringify(server.requests[0]!.body);
    assert.match(offered, /"word_count"/);
    assert.match(JSON.stringify(server.requests[1]!.body), /5 words/);
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("panto -p without a model uses a default model of the vendor whose key is set", async () => {
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  const server = await FakeLlmServer.start();
  try {
    // The built-in "anthropic" provider, pointed at the fake server; no models, no defaultModel.
    await Deno.writeTextFile(
      join(home, "config.json"),
      JSON.stringify({
        providers: {
          anthropic: {
            api: "anthropic-messages",
            baseUrl: server.anthropicBaseUrl,
            apiKeyEnv: "ANTHROPIC_API_KEY",
          },
        },
      }),
    );
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "hello" }] });
    const run = await runPanto(["-p", "hi"], { env: { PANTO_HOME: home, ANTHROPIC_API_KEY: KEY } });
    assert.equal(run.code, 0, run.stderr);
    // The first of the catalog's default models for Anthropic.
    assert.equal((server.requests[0]!.body as { model: string }).model, "claude-sonnet-4-6");
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("panto -p: multi-step tool use on a temp project writes, edits, runs and reads back", async () => {
  const project = await Deno.makeTempDir();
  const server = await FakeLlmServer.start();
  try {
    const call = (id: string, name: string, input: Record<string, unknown>) => ({
      kind: "turn" as const,
      blocks: [{ type: "tool_use" as const, id, name, input }],
    });
    server.enqueue(
      call("c1", "write", { path: "src/greet.ts", content: "export const greeting = 'hello';\n" }),
    );
    server.enqueue(
      call("c2", "edit", { path: "src/greet.ts", oldText: "'hello'", newText: "'hello, world'" }),
    );
    server.enqueue(call("c3", "bash", { command: "cat src/greet.ts && ls src" }));
    server.enqueue(call("c4", "grep", { pattern: "world", path: "src" }));
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Done: greeting updated." }] });
    const run = await runPanto([
      "-p",
      "update the greeting",
      "--api",
      "anthropic-messages",
      "--base-url",
      server.anthropicBaseUrl,
      "-m",
      "m",
    ], {
      cwd: project,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Done: greeting updated.\n");
    assert.equal(
      await Deno.readTextFile(join(project, "src", "greet.ts")),
      "export const greeting = 'hello, world';\n",
    );
    assert.equal(server.requests.length, 5);
    const results = server.requests.slice(1).map((r) => JSON.stringify(r.body));
    assert.match(
      results[2]!,
      /export const greeting = 'hello, world';/,
      "bash saw the edited file",
    );
    assert.match(results[3]!, /greet\.ts:1:export const greeting/, "grep found it");
    assert.ok(!results.some((r) => /"is_error":true/.test(r)), "no tool failed");
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("panto -p: a provider's idleTimeoutMs is the idle timeout, and the timeout names it", async () => {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
    const config = JSON.parse(await Deno.readTextFile(join(home, "config.json")));
    config.providers.fakeopenai.idleTimeoutMs = 300;
    await Deno.writeTextFile(join(home, "config.json"), JSON.stringify(config));
    const first = 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n';
    server.enqueue({
      kind: "stall",
      afterBytes: first.length,
      source: { kind: "sse", body: first + first },
    });
    // The stream stalls for good: an exit at all shows the idle timeout ended it.
    const run = await runPanto(["-p", "hello"], { env: { PANTO_HOME: home } });
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /sent nothing for 300 ms while we waited for the next chunk \(idle timeout: raise the idleTimeoutMs setting, for this provider or for all,/,
    );
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("panto -p -c: a last prompt that got no answer is named on stderr and not sent again", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "one" }] });
    assert.equal((await runPanto(["-p", "first question"], { env })).code, 0);
    // As a crash right after sending leaves it: the prompt saved, no answer.
    const store = new FileSystemJSONLStore({ dir: join(home, "sessions") });
    try {
      const latest = await store.latest();
      assert.ok(latest);
      const message = new Conversation().addUserMessage("LOST-PROMPT");
      await store.appendMessages(latest.id, [{
        message,
        conversation: [message],
        toolsAvailable: [],
      }]);
    } finally {
      await store.close();
    }
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "two" }] });
    const run = await runPanto(["-p", "-c", "second question"], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /last prompt got no answer; it is not sent again/);
    const body = JSON.stringify(server.requests[1]!.body);
    assert.match(body, /first question/);
    assert.doesNotMatch(body, /LOST-PROMPT/);
  });
});

Deno.test("panto -p --mode json: bash's output so far arrives as tool_progress lines before the result", async () => {
  const project = await Deno.makeTempDir();
  const server = await FakeLlmServer.start();
  try {
    const command = "echo one; sleep 0.5; echo two; sleep 0.3";
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "c1", name: "bash", input: { command } }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ran" }] });
    const run = await runPanto([
      "-p",
      "run it",
      "--mode",
      "json",
      "--api",
      "anthropic-messages",
      "--base-url",
      server.anthropicBaseUrl,
      "-m",
      "m",
    ], { cwd: project });
    assert.equal(run.code, 0, run.stderr);
    const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const progress = events.filter((e) => e.type === "tool_progress")
      .map((e) => e.partial[0].text);
    assert.deepEqual(progress, ["one\n", "one\ntwo\n"]);
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf("tool_progress") < types.indexOf("tool_dispatch_complete"));
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
  }
});
