/**
 * The catalog's OpenAI (Responses API), Google (Gemini API) and Amazon
 * Bedrock (ConverseStream) providers under the installed `panto` command,
 * with only their key (or, for Bedrock, an IAM key pair) set: a catalog
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
  /** The key variable the config names (a provider moved to the fake server needs one named). */
  keyEnv: string;
  /** The credential variables set (the test's name lists them). */
  env: Record<string, string>;
  api: string;
  baseUrl(server: FakeLlmServer): string;
  model: string;
  /** Checks the first request: path, key header, thinking level. */
  checkFirst(path: string, headers: Record<string, string>, body: Record<string, unknown>): void;
}

const CASES: readonly Case[] = [{
  provider: "openai",
  keyEnv: "OPENAI_API_KEY",
  env: { OPENAI_API_KEY: KEY },
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
  env: { GEMINI_API_KEY: KEY },
  api: "google-generative-ai",
  baseUrl: (server) => `${server.url}/v1beta`,
  model: "gemini-2.5-flash:low",
  checkFirst(path, headers, body) {
    assert.equal(path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    assert.equal(headers["x-goog-api-key"], KEY);
    const config = body.generationConfig as { thinkingConfig?: { thinkingBudget?: number } };
    assert.ok((config.thinkingConfig?.thinkingBudget ?? 0) > 0, JSON.stringify(config));
  },
}, {
  provider: "amazon-bedrock",
  keyEnv: "AWS_BEARER_TOKEN_BEDROCK",
  env: {
    AWS_ACCESS_KEY_ID: "AKIDTESTCATALOG",
    AWS_SECRET_ACCESS_KEY: KEY,
    AWS_REGION: "eu-west-1",
  },
  api: "bedrock-converse",
  baseUrl: (server) => server.url,
  model: "global.anthropic.claude-sonnet-4-6:high",
  checkFirst(path, headers, body) {
    assert.equal(path, "/model/global.anthropic.claude-sonnet-4-6/converse-stream");
    // Signed for the region AWS_REGION names, with the key id, never the secret.
    assert.match(
      headers.authorization ?? "",
      /^AWS4-HMAC-SHA256 Credential=AKIDTESTCATALOG\/\d{8}\/eu-west-1\/bedrock\/aws4_request, /,
    );
    assert.ok(!JSON.stringify(headers).includes(KEY), "the secret signs, it never travels");
    const fields = body.additionalModelRequestFields as { thinking?: { type?: string } };
    assert.ok(fields?.thinking?.type, JSON.stringify(body));
  },
}, {
  provider: "amazon-bedrock",
  keyEnv: "AWS_BEARER_TOKEN_BEDROCK",
  env: { AWS_BEARER_TOKEN_BEDROCK: KEY },
  api: "bedrock-converse",
  baseUrl: (server) => server.url,
  model: "global.anthropic.claude-haiku-4-5-20251001-v1:0",
  checkFirst(path, headers) {
    assert.equal(
      decodeURIComponent(path),
      "/model/global.anthropic.claude-haiku-4-5-20251001-v1:0/converse-stream",
    );
    assert.equal(headers.authorization, `Bearer ${KEY}`);
  },
}];

for (const testCase of CASES) {
  const only = Object.keys(testCase.env).join(" and ");
  Deno.test(`installed panto: ${testCase.provider}/${testCase.model} with only ${only} runs a tool round trip over ${testCase.api}`, async () => {
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
          env: { ...childEnv(home), PANTO_HOME: home, NO_COLOR: "1", ...testCase.env },
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
