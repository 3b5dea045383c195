/**
 * `deno task bundle`'s output: the program (`panto_main.js`) and its launcher
 * (`panto.js`), which runs it with the same scoped permissions as the
 * `panto` command.
 */
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
    const bundle = async (entry: string, name: string) => {
      const bundled = await new Deno.Command(Deno.execPath(), {
        args: ["bundle", "--quiet", "--platform=deno", "-o", join(dir, name), join(ROOT, entry)],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(bundled.success, decoder.decode(bundled.stderr));
    };
    await bundle("cli/main.ts", "panto_main.js");
    await bundle("cli/launcher/launch.ts", "panto.js");
    const work = join(dir, "work");
    await Deno.mkdir(work);

    const run = (args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--no-prompt",
          "--allow-read",
          "--allow-env",
          "--allow-net=127.0.0.1",
          "--allow-run",
          join(dir, "panto.js"),
          ...args,
        ],
        cwd: work,
        clearEnv: true,
        env: {
          PANTO_HOME: join(dir, "home"),
          HOME: dir,
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          DENO_DIR: Deno.env.get("DENO_DIR") ??
            join(Deno.env.get("HOME") ?? "/root", ".cache/deno"),
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

    // Quoted front matter takes the yaml package, imported on demand: the bundle must contain it.
    await Deno.mkdir(join(dir, "home", "skills", "pdf"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "home", "skills", "pdf", "SKILL.md"),
      '---\nname: pdf\ndescription: "Reads: PDF files"\n---\nSteps.\n',
    );
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
    assert.match(
      JSON.stringify(server.requests.at(-1)?.body),
      /<description>Reads: PDF files<\/description>/,
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
