/** `panto models` (and `--list-models`): the catalog as a table or JSON, usable providers first. */
import assert from "node:assert/strict";
import { runPanto } from "../../support/run_panto.ts";

Deno.test("panto models: the models of the providers whose key is set, with window, output, input, thinking, prices", async () => {
  const run = await runPanto(["models", "sonnet"], { env: { ANTHROPIC_API_KEY: "sk-test" } });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split("\n");
  assert.match(lines[0]!, /^MODEL +CONTEXT +OUTPUT +INPUT +THINKING +\$ IN\/OUT +KEY$/);
  const row = lines.find((line) => line.startsWith("anthropic/claude-sonnet-4-5 "));
  assert.match(row ?? "", /200k +64k +text\+image +off\.\.high +3\/15 +set$/);
  assert.match(run.stdout, /models of the 1 provider whose key is set/);
  assert.doesNotMatch(run.stdout, /openrouter\//, "no key, no listing without --all");
});

Deno.test("panto --list-models --all --json: every provider's, usable or not, with the key variable", async () => {
  const run = await runPanto(["--list-models", "--all", "--json", "gemini-2.5-pro"], {});
  assert.equal(run.code, 0, run.stderr);
  const rows = JSON.parse(run.stdout) as { spec: string; usable: boolean; keyEnv: string }[];
  const gemini = rows.find((row) => row.spec === "google/gemini-2.5-pro");
  assert.equal(gemini?.usable, false);
  assert.equal(gemini?.keyEnv, "GEMINI_API_KEY");
});

Deno.test("panto models: no key set says how to see every model; a filter matching nothing exits 1", async () => {
  const none = await runPanto(["models"], {});
  assert.equal(none.code, 1);
  assert.match(none.stdout, /no key of a known provider is set \(--all lists every model/);
  assert.ok(!none.stdout.includes("No model matches"), "no filter was given");
  const nothing = await runPanto(["models", "--all", "no-such-model-xyz"], {});
  assert.equal(nothing.code, 1);
  assert.match(nothing.stdout, /No model matches "no-such-model-xyz"/);
});

Deno.test("panto models: a configured model the catalog lacks is listed under its alias, with what the alias says", async () => {
  const home = await Deno.makeTempDir({ prefix: "panto-models-home-" });
  try {
    await Deno.writeTextFile(
      `${home}/config.json`,
      JSON.stringify({
        providers: { box: { api: "openai-chat", baseUrl: "http://127.0.0.1:9/v1" } },
        models: {
          local: { provider: "box", model: "qwen3-coder", contextWindow: 65536 },
          coder: { provider: "box", model: "qwen3-coder" },
          sonnet: { provider: "anthropic", model: "claude-sonnet-4-5" },
        },
      }),
    );
    const run = await runPanto(["models"], { env: { PANTO_HOME: home } });
    assert.equal(run.code, 0, run.stderr);
    const row = run.stdout.split("\n").find((line) => line.startsWith("box/qwen3-coder "));
    assert.match(row ?? "", /^box\/qwen3-coder \(local, coder\) +66k +- +- +- +- +none needed$/);
    assert.doesNotMatch(run.stdout, /anthropic\//, "no Anthropic key: its alias is not listed");
    const filtered = await runPanto(["models", "--json", "coder"], { env: { PANTO_HOME: home } });
    const rows = JSON.parse(filtered.stdout) as { spec: string; inCatalog: boolean }[];
    assert.deepEqual(rows.map((r) => [r.spec, r.inCatalog]), [["box/qwen3-coder", false]]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
