/**
 * Sessions through the program: print runs are saved, `-c` and `-r`
 * continue them (with the model pre-selected from the session), `panto
 * sessions` lists, renames, exports and deletes, a bad config touches no
 * session, and `--no-session` / `--store sqlite` are honoured.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { withFakeHome } from "../../support/fake_config.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";

function answer(server: FakeLlmServer, text: string): void {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

async function sessionsJson(
  home: string,
  ...extra: string[]
): Promise<
  {
    id: string;
    messageCount: number;
    lastUserMessage: string;
    firstUserMessage?: string;
    name?: string;
    wire?: { model: string };
    unreadable?: string;
    state?: { status: string };
  }[]
> {
  const run = await runPanto(["sessions", "--json", ...extra], { env: { PANTO_HOME: home } });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

Deno.test("sessions: -p saves a session, -c and -r continue it, the model is pre-selected", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "one");
    assert.equal((await runPanto(["-p", "first question", "-m", "smart"], { env })).code, 0);
    const [session] = await sessionsJson(home);
    assert.ok(session);
    assert.equal(session.lastUserMessage, "first question");
    assert.equal(session.wire?.model, "smart-model");

    // -c without -m: the session's model (smart, Anthropic) is chosen over the default (fast, OpenAI).
    answer(server, "two");
    const second = await runPanto(["-p", "-c", "second question"], { env });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, "two\n");
    assert.equal(server.requests[1]!.path, "/v1/messages");
    const body = JSON.stringify(server.requests[1]!.body);
    assert.match(body, /first question/);
    assert.match(body, /"one"/);

    // -r with a unique prefix continues the same session.
    answer(server, "three");
    const third = await runPanto(["-p", "-r", session.id.slice(0, 10), "third question"], { env });
    assert.equal(third.code, 0, third.stderr);
    const after = await sessionsJson(home);
    assert.equal(after.length, 1);
    assert.equal(after[0]!.lastUserMessage, "third question");
    assert.equal(after[0]!.firstUserMessage, "first question");
    const table = await runPanto(["sessions"], { env });
    assert.match(table.stdout, /first question/, "the table shows the first prompt");
    assert.doesNotMatch(table.stdout, /third question/);
    assert.ok(
      after[0]!.messageCount >= 7,
      `system, 3 user and 3 assistant messages; got ${after[0]!.messageCount}`,
    );

    // An explicit -m wins over the session's model.
    answer(server, "four");
    assert.equal((await runPanto(["-p", "-c", "-m", "fast", "fourth"], { env })).code, 0);
    assert.equal(server.requests.at(-1)!.path, "/v1/chat/completions");
  });
});

Deno.test("sessions: list, show, rename, export and rm", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "the answer");
    assert.equal((await runPanto(["-p", "a question about zebras"], { env })).code, 0);
    const [session] = await sessionsJson(home);
    const id = session!.id;

    const table = await runPanto(["sessions"], { env });
    assert.match(table.stdout, /ID\s+MODIFIED\s+MSGS/);
    assert.match(table.stdout, new RegExp(id));
    assert.match(table.stdout, /a question about zebras/);

    const renamed = await runPanto(["sessions", "rename", id.slice(0, 8), "zebra-talk"], { env });
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.equal((await sessionsJson(home))[0]!.name, "zebra-talk");

    const exported = await runPanto(["sessions", "export", id], { env });
    assert.match(exported.stdout, /a question about zebras/);
    assert.match(exported.stdout, /the answer/);

    const unknown = await runPanto(["sessions", "show", "ffffffff"], { env });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No session matches "ffffffff"/);

    const removed = await runPanto(["sessions", "rm", id], { env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(await sessionsJson(home), []);
  });
});

Deno.test("sessions: a bad config exits 2 naming the field and touches no session", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "saved");
    assert.equal((await runPanto(["-p", "keep me"], { env })).code, 0);
    const sessionsDir = join(home, "sessions");
    const before = await snapshot(sessionsDir);
    await Deno.writeTextFile(
      join(home, "config.json"),
      JSON.stringify({
        models: { fast: { provider: "fakeopenai", model: "m", reasoning: "max" } },
      }),
    );
    const run = await runPanto(["-p", "-c", "more"], { env });
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /config\.json: models\.fast\.reasoning: expected one of "off", "minimal", "low", "medium", "high", "xhigh", got "max"/,
    );
    assert.deepEqual(await snapshot(sessionsDir), before, "no session file changed");
  });
});

Deno.test("sessions: --no-session keeps nothing; --store sqlite keeps sessions in one database", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "forgotten");
    assert.equal((await runPanto(["-p", "--no-session", "ephemeral"], { env })).code, 0);
    assert.deepEqual(await sessionsJson(home), []);

    answer(server, "in sqlite");
    const run = await runPanto(["-p", "--store", "sqlite", "stored in sqlite"], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.ok((await Deno.stat(join(home, "sessions.db"))).isFile);
    const listed = await sessionsJson(home, "--store", "sqlite");
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.lastUserMessage, "stored in sqlite");
    assert.deepEqual(await sessionsJson(home), [], "the jsonl store is separate");
  });
});

Deno.test("sessions: -r with an unknown id is a usage error", async () => {
  await withFakeHome(async (_server, home) => {
    const env = { PANTO_HOME: home };
    const unknown = await runPanto(["-p", "-r", "0123abcd", "hello"], { env });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No session matches "0123abcd"/);
    const bad = await runPanto(["-p", "-r", "../etc", "hello"], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /\.\.\/etc/);
  });
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile) out[entry.name] = await Deno.readTextFile(join(dir, entry.name));
  }
  return out;
}

Deno.test("sessions: a corrupt session fails closed, repair keeps the valid lines and backs up the file", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "first answer");
    assert.equal((await runPanto(["-p", "first"], { env })).code, 0);
    const [session] = await sessionsJson(home);
    const file = join(home, "sessions", `${session!.id}.jsonl`);
    const lines = (await Deno.readTextFile(file)).split("\n");
    lines.splice(2, 0, "{ this is not json");
    await Deno.writeTextFile(file, lines.join("\n"));

    const broken = await runPanto(["-p", "-c", "second"], { env });
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, new RegExp(`${session!.id}\\.jsonl:3 is corrupt`));
    assert.match(broken.stderr, /panto sessions repair/);

    const repair = await runPanto(["sessions", "repair", session!.id], { env });
    assert.equal(repair.code, 0, repair.stderr);
    assert.match(repair.stdout, /dropped 1/);
    assert.match(repair.stdout, /saved as .*bak/);

    answer(server, "second answer");
    const after = await runPanto(["-p", "-c", "second"], { env });
    assert.equal(after.code, 0, after.stderr);
    assert.match(
      JSON.stringify(server.requests.at(-1)!.body),
      /first answer/,
      "the valid history survived",
    );
  });
});

Deno.test("sessions: a session panto cannot read is listed with the reason and -c fails with it", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    answer(server, "old answer");
    assert.equal((await runPanto(["-p", "older"], { env })).code, 0);
    answer(server, "newer answer");
    assert.equal((await runPanto(["-p", "newer"], { env })).code, 0);
    const [newest] = await sessionsJson(home);
    const file = join(home, "sessions", `${newest!.id}.jsonl`);
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, text.replace(/"version":\d+/, '"version":9'));

    const table = await runPanto(["sessions"], { env });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /\(unreadable: written in session format version 9; this panto/);
    assert.match((await sessionsJson(home))[0]?.unreadable ?? "", /upgrade panto to read it$/);
    const resumed = await runPanto(["-p", "-c", "again"], { env });
    assert.notEqual(resumed.code, 0, "the older session is not continued instead");
    assert.match(resumed.stderr, /format version 9/);
  });
});

Deno.test("sessions --stale lists the sessions whose turn has run that long, marked interrupted", async () => {
  await withFakeHome(async (_server, home) => {
    const store = new FileSystemJSONLStore({ dir: join(home, "sessions") });
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const entry = (role: "user" | "assistant", text: string, minutesAgo: number) => ({
      message: { role, content: [{ type: "text" as const, text }], timestamp: at(minutesAgo) },
      conversation: [],
      toolsAvailable: [],
    });
    const cutOff = store.create();
    await cutOff.append([entry("user", "started long ago", 130), entry("assistant", "a", 125)]);
    await cutOff.append([entry("user", "cut off two hours ago", 120)]);
    const done = store.create();
    await done.append([entry("user", "q", 130), entry("assistant", "answered", 125)]);
    await store.close();

    const env = { PANTO_HOME: home };
    // (Saved without a directory: only --all lists them.)
    const stale = await sessionsJson(home, "--all", "--stale", "60");
    assert.deepStrictEqual(stale.map((s) => [s.id, s.state?.status]), [[cutOff.id, "interrupted"]]);
    assert.deepStrictEqual(await sessionsJson(home, "--all", "--stale", "180"), []);
    assert.deepStrictEqual(await sessionsJson(home, "--stale", "60"), []);
    const table = await runPanto(["sessions", "--all", "--stale", "60"], { env });
    assert.match(table.stdout, /\(interrupted\) started long ago/, "titled by its first prompt");
    assert.doesNotMatch(table.stdout, new RegExp(done.id));
  });
});

Deno.test("panto completion prints a shell completion script", async () => {
  const bash = await runPanto(["completion", "bash"]);
  assert.equal(bash.code, 0, bash.stderr);
  assert.match(bash.stdout, /_panto/);
  assert.match(bash.stdout, /complete/);
  const fish = await runPanto(["completion", "fish"]);
  assert.equal(fish.code, 0);
  assert.match(fish.stdout, /commandline/);
});
