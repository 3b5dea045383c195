/** `deno task bundle`'s output is one file that runs with `deno run` and scoped permissions. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeLlmServer } from "../support/fake_llm_server.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const decoder = new TextDecoder();

Deno.test("the bundle answers --version and a print-mode prompt", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-bundle-" });
  const server = await FakeLlmServer.start();
  try {
    const out = join(dir, "panto.js");
    const bundled = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform=deno", "-o", out, join(ROOT, "cli/main.ts")],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(bundled.success, decoder.decode(bundled.stderr));

    const run = (args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          `--allow-read=${dir}`,
          `--allow-write=${dir}`,
          "--allow-env=HOME,PANTO_HOME,NO_COLOR,OPENAI_API_KEY,ANTHROPIC_API_KEY",
          "--ignore-env",
          "--allow-net=127.0.0.1",
          out,
          ...args,
        ],
        cwd: dir,
        clearEnv: true,
        env: {
          PANTO_HOME: join(dir, "home"),
          HOME: dir,
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();

    const version = await run(["--version"]);
    assert.equal(decoder.decode(version.stdout).trim(), "0.1.0");

    // The interactive mode is imported on demand: the bundle must contain it too.
    const interactive = await run([]);
    assert.equal(interactive.code, 2);
    assert.match(decoder.decode(interactive.stderr), /The interactive mode needs a terminal/);

    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "bundled answer" }] });
    const answer = await run([
      "-p",
      "hi",
      "--api",
      "openai-chat",
      "--base-url",
      server.openaiBaseUrl,
      "-m",
      "m",
    ]);
    assert.equal(answer.code, 0, decoder.decode(answer.stderr));
    assert.equal(decoder.decode(answer.stdout), "bundled answer\n");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
