/**
 * Files the user names, under the installed `panto` command: an `@path`
 * outside the project is attached, an `--mcp-config` file and a SQLite
 * `--store-url` outside it work, each granted exactly (the file tools still
 * cannot read beside them), and a config that is a named pipe or a device
 * stops neither the launcher nor the program.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../support/child_env.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { STDIO_SERVER_COMMAND } from "../../support/mcp_test_server.ts";

const decoder = new TextDecoder();
const DENO_DIR = childEnv("/").DENO_DIR!;

interface Place {
  server: FakeLlmServer;
  project: string;
  home: string;
  /** A directory outside the project and `$PANTO_HOME`. */
  outside: string;
  run(args: string[]): Promise<Deno.CommandOutput>;
}

async function withPlace(fn: (place: Place) => Promise<void>): Promise<void> {
  await withInstalledPanto(async (panto) => {
    const server = await FakeLlmServer.start();
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-named-" }));
    const [project, home, outside] = ["project", "home", "outside"].map((d) => join(root, d)) as [
      string,
      string,
      string,
    ];
    try {
      for (const dir of [project, home, outside]) await Deno.mkdir(dir);
      await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
      const run = (args: string[]) =>
        new Deno.Command(panto, {
          args,
          cwd: project,
          clearEnv: true,
          env: { ...childEnv(home), PANTO_HOME: home, NO_COLOR: "1" },
          stdin: "null",
        }).output();
      await fn({ server, project, home, outside, run });
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}

/** The last request's tool results and user text, as one string. */
function lastRequest(server: FakeLlmServer): string {
  return JSON.stringify(server.requests.at(-1)?.body);
}

Deno.test("installed panto: @/abs/path outside the project is attached; the file tools still may not read beside it", async () => {
  await withPlace(async ({ server, outside, run }) => {
    await Deno.writeTextFile(join(outside, "notes.md"), "the notes from elsewhere\n");
    await Deno.writeTextFile(join(outside, "other.txt"), "not named by the user\n");
    server.enqueue({
      kind: "turn",
      blocks: [{
        type: "tool_use",
        id: "r",
        name: "read",
        input: { path: join(outside, "other.txt") },
      }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "read it" }] });
    const out = await run(["-p", `summarise @${join(outside, "notes.md")}`]);
    const stderr = decoder.decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const first = JSON.stringify(server.requests[0]?.body);
    assert.ok(first.includes("the notes from elsewhere"), first);
    const second = lastRequest(server);
    assert.ok(!second.includes("not named by the user"), "the read tool reached outside");
    assert.match(second, /outside the working directory/);
  });
});

Deno.test("installed panto: --mcp-config FILE outside the project is read (another agent's .mcp.json)", async () => {
  await withPlace(async ({ server, outside, run }) => {
    const file = join(outside, "mcp.json");
    await Deno.writeTextFile(
      file,
      JSON.stringify({ mcpServers: { local: { ...STDIO_SERVER_COMMAND, env: { DENO_DIR } } } }),
    );
    server.enqueue(
      {
        kind: "turn",
        blocks: [{ type: "tool_use", id: "e", name: "local__echo", input: { text: "from stdio" } }],
      },
      { kind: "turn", blocks: [{ type: "text", text: "ok" }] },
    );
    const out = await run(["-p", "call it", "--mcp-config", file]);
    const stderr = decoder.decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.doesNotMatch(stderr, /may not read/);
    assert.ok(lastRequest(server).includes("echo: from stdio"), lastRequest(server));
  });
});

Deno.test("installed panto: a SQLite --store-url outside the project is written, with its directory created", async () => {
  await withPlace(async ({ server, outside, run }) => {
    const database = join(outside, "new-dir", "sessions.db");
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "stored" }] });
    const out = await run(["-p", "hi", "--store", "sqlite", "--store-url", database]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    assert.ok((await Deno.stat(database)).isFile);
    const listed = await run(["sessions", "--store", "sqlite", "--store-url", database, "--all"]);
    assert.equal(listed.code, 0, decoder.decode(listed.stderr));
    assert.match(decoder.decode(listed.stdout), /hi/);
  });
});

for (const kind of ["named pipe", "device"] as const) {
  Deno.test(`installed panto: a ${kind} as $PANTO_HOME/config.json is refused at once, naming it`, async () => {
    await withPlace(async ({ home, run }) => {
      const config = join(home, "config.json");
      await Deno.remove(config);
      if (kind === "named pipe") {
        assert.ok((await new Deno.Command("mkfifo", { args: [config] }).output()).success);
      } else {
        await Deno.symlink("/dev/zero", config);
      }
      const out = await run(["-p", "hi"]);
      const stderr = decoder.decode(out.stderr);
      assert.equal(out.code, 2, stderr);
      assert.match(
        stderr,
        /config\.json.* is (a named pipe \(FIFO\)|a device), not a regular file/,
      );
    });
  });
}
