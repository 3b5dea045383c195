/**
 * `panto sessions export` and `import` under the installed command: an
 * export to a path outside the project is written (its directories
 * created), an existing file is refused without `--force`, a JSONL export
 * imports back as a new session, and pi and Claude Code files outside the
 * project import.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../support/child_env.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";

const decoder = new TextDecoder();
const FIXTURES = new URL("../../fixtures/import/", import.meta.url);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The installed command in a project, with a home and a directory outside both. */
async function withCommand(
  fn: (
    run: (args: string[]) => Promise<Run>,
    outside: string,
    server: FakeLlmServer,
  ) => Promise<void>,
): Promise<void> {
  await withInstalledPanto(async (panto) => {
    const server = await FakeLlmServer.start();
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-transfer-" }));
    const [project, home, outside] = ["project", "home", "outside"].map((d) => join(root, d)) as [
      string,
      string,
      string,
    ];
    try {
      for (const dir of [project, home, outside]) await Deno.mkdir(dir);
      await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
      const run = async (args: string[]): Promise<Run> => {
        const out = await new Deno.Command(panto, {
          args,
          cwd: project,
          clearEnv: true,
          env: { ...childEnv(home), PANTO_HOME: home, NO_COLOR: "1" },
          stdin: "null",
        }).output();
        return {
          code: out.code,
          stdout: decoder.decode(out.stdout),
          stderr: decoder.decode(out.stderr),
        };
      };
      await fn(run, outside, server);
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("installed panto: sessions export writes outside the project, refuses to overwrite without --force, imports back", async () => {
  await withCommand(async (run, outside, server) => {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Twelve loaves." }] });
    const asked = await run(["-p", "How many loaves?"]);
    assert.equal(asked.code, 0, asked.stderr);
    const [session] = JSON.parse((await run(["sessions", "--json"])).stdout) as { id: string }[];
    assert.ok(session);

    const page = join(outside, "new", "dir", "loaves.html");
    const exported = await run(["sessions", "export", session.id, page]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(
      exported.stdout,
      new RegExp(`Exported session ${session.id} to ${page} \\(html\\)`),
    );
    const html = await Deno.readTextFile(page);
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /How many loaves\?/);
    assert.match(html, /Twelve loaves\./);

    await Deno.writeTextFile(page, "kept");
    const refused = await run(["sessions", "export", session.id, page]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`${page} already exists: pass --force to overwrite it`),
    );
    assert.equal(await Deno.readTextFile(page), "kept", "the file is untouched");
    const forced = await run(["sessions", "export", session.id, page, "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(await Deno.readTextFile(page), /Twelve loaves\./);

    const jsonl = join(outside, "loaves.jsonl");
    assert.equal((await run(["sessions", "export", session.id, jsonl])).code, 0);
    const imported = await run(["sessions", "import", jsonl]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /\(panto session\) as session \S+: \d+ messages/);
    const id = /Resume it: panto -r (\S+)/.exec(imported.stdout)?.[1];
    assert.ok(id && id !== session.id, imported.stdout);
    const shown = await run(["sessions", "show", id]);
    assert.match(shown.stdout, /How many loaves\?[\s\S]*Twelve loaves\./);
  });
});

Deno.test("installed panto: pi and Claude Code files outside the project import; a bad line is named", async () => {
  await withCommand(async (run, outside) => {
    const files: [string, string][] = [
      ["pi_session.jsonl", "pi session"],
      ["claude_code_transcript.jsonl", "Claude Code transcript"],
    ];
    for (const [file, kind] of files) {
      const copy = join(outside, file);
      await Deno.copyFile(new URL(file, FIXTURES), copy);
      const imported = await run(["sessions", "import", copy]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, new RegExp(`Imported ${copy} \\(${kind}\\)`));
    }
    const listed = await run(["sessions"]);
    assert.match(listed.stdout, /bakery stock/);
    assert.match(listed.stdout, /Fix the failing date test/);

    const broken = join(outside, "broken.jsonl");
    await Deno.writeTextFile(broken, '{"type":"user","uuid":"a","parentUuid":null,\n');
    const failed = await run(["sessions", "import", broken]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, new RegExp(`Cannot import ${broken}:1: invalid JSON`));
  });
});
