/**
 * The session store through the program: a store that cannot be used stops
 * panto before any model request with one line (exit 2) naming the
 * directory, file or URL (password redacted) and the fix; a store failure
 * during a turn is not called a failed request; a planted lock symlink is
 * not followed; base-URL credentials are neither stored nor shown.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { withFakeHome } from "../support/fake_config.ts";
import type { FakeLlmServer } from "../support/fake_llm_server.ts";
import { type PantoRun, runPanto } from "../support/run_panto.ts";

function answer(server: FakeLlmServer, text: string): void {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

/** Exit 2 with one line on stderr (no stack trace) that matches every pattern. */
function assertUsageLine(run: PantoRun, ...patterns: RegExp[]): void {
  assert.equal(run.code, 2, run.stderr);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line, got:\n${run.stderr}`);
  for (const pattern of patterns) assert.match(lines[0]!, pattern);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

Deno.test("store check: an unwritable --session-dir stops panto before any request", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "never asked");
    const file = join(home, "file.txt");
    await Deno.writeTextFile(file, "a file, not a directory");
    for (const dir of [join(file, "sessions"), file]) {
      const run = await runPanto(["-p", "hi", "--session-dir", dir], { env });
      assertUsageLine(
        run,
        new RegExp(`Sessions directory ${escape(dir)} is not a directory`),
        /--session-dir DIR/,
        /--no-session/,
      );
    }
    assertUsageLine(
      await runPanto(["-p", "hi", "--session-dir", ""], { env }),
      /sessions directory path is empty/,
      /--session-dir DIR/,
    );
    assert.equal(server.requests.length, 0, "no model request was made");
  });
});

Deno.test("store check: bad SQLite databases are one-line usage errors naming the file", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    const sqlite = (url: string) =>
      runPanto(["-p", "hi", "--store", "sqlite", "--store-url", url], { env });
    assertUsageLine(await sqlite(""), /database path is empty/, /--store-url FILE/);

    const text = join(home, "notadb.txt");
    await Deno.writeTextFile(text, "just some text, long enough to fill a header page\n".repeat(4));
    assertUsageLine(
      await sqlite(text),
      new RegExp(`Session database ${escape(text)} could not be opened: file is not a database`),
      /--store-url FILE/,
      /--no-session/,
    );

    const newer = join(home, "newer.db");
    const db = new DatabaseSync(newer);
    db.exec("PRAGMA user_version = 99");
    db.close();
    assertUsageLine(
      await sqlite(newer),
      new RegExp(`${escape(newer)} has schema version 99; this panto knows \\d+: upgrade panto`),
    );
    assert.equal(server.requests.length, 0);
  });
});

Deno.test("store check: a refused PostgreSQL connection names the URL without its password", async () => {
  await withFakeHome(async (server, home) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    const url = `postgres://panto:hunter2pw@127.0.0.1:${port}/sessions`;
    const run = await runPanto(["-p", "hi", "--store", "postgres", "--store-url", url], {
      env: { PANTO_HOME: home },
    });
    assertUsageLine(
      run,
      new RegExp(`postgres://panto:\\*\\*\\*@127\\.0\\.0\\.1:${port}/sessions could not be used`),
      /ECONNREFUSED/,
      /--no-session/,
    );
    assert.doesNotMatch(run.stderr, /hunter2pw/);
    assert.equal(server.requests.length, 0);
  });
});

Deno.test("panto sessions: an unusable store is a one-line usage error; an unknown id stays one too", async () => {
  await withFakeHome(async (_server, home) => {
    const env = { PANTO_HOME: home };
    const file = join(home, "file.txt");
    await Deno.writeTextFile(file, "a file, not a directory");
    const listed = await runPanto(["sessions", "--session-dir", join(file, "sessions")], { env });
    assertUsageLine(listed, /is not a directory/, /--session-dir DIR/);

    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    const url = `postgres://panto:hunter2pw@127.0.0.1:${port}/sessions`;
    const refused = await runPanto(["sessions", "--store", "postgres", "--store-url", url], {
      env,
    });
    assertUsageLine(refused, /could not be used/, /--store-url/);
    assert.doesNotMatch(refused.stderr, /hunter2pw/);

    assertUsageLine(await runPanto(["sessions", "show", "nope"], { env }), /No session matches/);
  });
});

Deno.test("a planted lock symlink is not followed, and the store error is not a failed request", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "first answer");
    assert.equal((await runPanto(["-p", "first"], { env })).code, 0);
    const sessionsDir = join(home, "sessions");
    const jsonl = (await Array.fromAsync(Deno.readDir(sessionsDir))).find((e) =>
      e.name.endsWith(".jsonl")
    )!;
    const lock = join(sessionsDir, jsonl.name.replace(/\.jsonl$/, ".lock"));
    const victim = join(home, "victim.txt");
    await Deno.writeTextFile(victim, "precious\n");
    await Deno.remove(lock);
    await Deno.symlink(victim, lock);

    answer(server, "second answer");
    const run = await runPanto(["-p", "-c", "second"], { env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`lock file ${escape(lock)} is a symbolic link`));
    assert.doesNotMatch(run.stderr, /The request failed/);
    assert.equal(await Deno.readTextFile(victim), "precious\n");
    assert.equal(server.requests.length, 1, "the resumed prompt could not be saved, so not sent");
  });
});

Deno.test("credentials in --base-url are neither stored in the session nor shown", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "basic auth works");
    const baseUrl = server.url.replace("//", "//bob:hunter2pw@");
    const run = await runPanto(
      ["-p", "hello", "--api", "anthropic-messages", "--base-url", baseUrl, "--model", "m1"],
      { env },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "basic auth works\n");
    assert.match(server.requests[0]!.headers.authorization ?? "", /^Basic /, "the URL was used");

    const sessionsDir = join(home, "sessions");
    const files = (await Array.fromAsync(Deno.readDir(sessionsDir))).map((e) =>
      join(sessionsDir, e.name)
    );
    const stored = files.find((f) => f.endsWith(".jsonl"))!;
    assert.match(
      await Deno.readTextFile(stored),
      /"baseUrl":"http:\/\/bob:\*\*\*@127\.0\.0\.1:\d+"/,
    );
    for (const path of files) assert.doesNotMatch(await Deno.readTextFile(path), /hunter2pw/, path);

    const listed = await runPanto(["sessions", "--json"], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /bob:\*\*\*@/);
    const shown = await runPanto(["sessions", "show", stored.split("/").at(-1)!.slice(0, 12)], {
      env,
    });
    for (const output of [run, listed, shown]) {
      assert.doesNotMatch(output.stdout + output.stderr, /hunter2pw/);
    }
  });
});

Deno.test("sessions repair: a file that lost its header line keeps its first message", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "the answer");
    assert.equal((await runPanto(["-p", "--no-tools", "the question"], { env })).code, 0);
    const sessionsDir = join(home, "sessions");
    const name = (await Array.fromAsync(Deno.readDir(sessionsDir))).find((e) =>
      e.name.endsWith(".jsonl")
    )!.name;
    const path = join(sessionsDir, name);
    await Deno.writeTextFile(path, (await Deno.readTextFile(path)).split("\n").slice(1).join("\n"));

    const id = name.replace(/\.jsonl$/, "");
    const repair = await runPanto(["sessions", "repair", id], { env });
    assert.equal(repair.code, 0, repair.stderr);
    assert.match(repair.stdout, /dropped 0/);
    assert.match(repair.stdout, /a minimal header was written/);
    const exported = await runPanto(["sessions", "export", id], { env });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /the question/);
    assert.match(exported.stdout, /the answer/);
  });
});
