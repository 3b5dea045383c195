/**
 * The catalog's OpenAI (Responses API) and Google (Gemini API) providers
 * under the installed `panto` command, with only their key set: a catalog
 * model with a thinking level runs a tool round trip, the level reaches the
 * wire in each API's own shape, and the key travels only in its header.
 * Each provider is pointed at the fake server by a config that moves its
 * base URL (the catalog still supplies the model's facts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../support/child_env.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";

const decoder = new TextDecoder();
const KEY = "sk-test-SECRET-catalog-apis";

interface Case {
  provider: string;
  keyEnv: string;
  api: string;
  baseUrl(server: FakeLlmServer): string;
  model: string;
  /** Checks the first request: path, key header, thinking level. */
  checkFirst(path: string, headers: Record<string, string>, body: Record<string, unknown>): void;
}

const CASES: readonly Case[] = [{
  provider: "openai",
  keyEnv: "OPENAI_API_KEY",
  api: "openai-responses",
  baseUrl: (server) => server.openaiBaseUrl,
  model: "gpt-5.5:high",
  checkFirst(path, headers, body) {
    assert.equal(path, "/v1/responses");
    assert.equal(headers.authorization, `Bearer ${KEY}`);
    assert.equal(body.model, "gpt-5.5");
    assert.deepEqual(body.reasoning, { effort: "high", summary: "auto" });
  },
}, {
  provider: "google",
  keyEnv: "GEMINI_API_KEY",
  api: "google-generative-ai",
  baseUrl: (server) => `${server.url}/v1beta`,
  model: "gemini-2.5-flash:low",
  checkFirst(path, headers, body) {
    assert.equal(path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    assert.equal(headers["x-goog-api-key"], KEY);
    const config = body.generationConfig as { thinkingConfig?: { thinkingBudget?: number } };
    assert.ok((config.thinkingConfig?.thinkingBudget ?? 0) > 0, JSON.stringify(config));
  },
}];

for (const testCase of CASES) {
  Deno.test(`installed panto: ${testCase.provider}/${testCase.model} with only ${testCase.keyEnv} runs a tool round trip over ${testCase.api}`, async () => {
    await withInstalledPanto(async (panto) => {
      const server = await FakeLlmServer.start();
      const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-apis-" }));
      const [home, project] = [join(root, "home"), join(root, "project")];
      try {
        await Deno.mkdir(home);
        await Deno.mkdir(project);
        await Deno.writeTextFile(join(project, "notes.txt"), "alpha\nbeta\n");
        await Deno.writeTextFile(
          join(home, "config.json"),
          JSON.stringify({
            providers: {
              [testCase.provider]: {
                api: testCase.api,
                baseUrl: testCase.baseUrl(server),
                apiKeyEnv: testCase.keyEnv,
              },
            },
            retry: { maxRetries: 0 },
          }),
        );
        server.enqueue({
          kind: "turn",
          blocks: [
            { type: "thinking", thinking: "Read the notes first." },
            { type: "tool_use", id: "call_read", name: "read", input: { path: "notes.txt" } },
          ],
        });
        server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "alpha and beta." }] });
        const out = await new Deno.Command(panto, {
          args: ["-p", "What is in notes.txt?", "-m", `${testCase.provider}/${testCase.model}`],
          cwd: project,
          clearEnv: true,
          env: { ...childEnv(home), PANTO_HOME: home, NO_COLOR: "1", [testCase.keyEnv]: KEY },
          stdin: "null",
        }).output();
        const stderr = decoder.decode(out.stderr);
        assert.equal(out.code, 0, stderr);
        assert.equal(decoder.decode(out.stdout), "alpha and beta.\n");
        assert.equal(server.requests.length, 2);
        const [first, second] = server.requests as [
          (typeof server.requests)[number],
          (typeof server.requests)[number],
        ];
        testCase.checkFirst(first.path, first.headers, first.body as Record<string, unknown>);
        const followUp = JSON.stringify(second.body);
        assert.match(followUp, /1\\talpha/, "the tool result went back in the API's shape");
        assert.ok(
          !first.path.includes(KEY) && !stderr.includes(KEY),
          "the key is in no URL or log",
        );
      } finally {
        await server.close();
        await Deno.remove(root, { recursive: true });
      }
    });
  });
}
