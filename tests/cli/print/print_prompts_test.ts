/**
 * `panto -p "a" "b"`: several prompt words are sent in turn in one session,
 * as pi sends them: each once the one before is answered, `@path` words
 * attached to the first; text mode prints the last answer (pi prints only
 * the final message), json mode every event of both runs; a failed prompt
 * stops the run before the next one is sent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";

/** Each request's user and assistant texts, in order. */
function conversations(server: FakeLlmServer): string[][] {
  return server.requests.map((request) => {
    const body = request.body as { messages: { role: string; content: unknown }[] };
    return body.messages.filter((m) => m.role !== "system").map((m) =>
      `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`
    );
  });
}

function reply(server: FakeLlmServer, ...texts: string[]): void {
  for (const text of texts) server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

Deno.test("panto -p A B: two requests in order in one session; the last answer on stdout, as pi prints it", async () => {
  await withFakeHome(async (server, home) => {
    reply(server, "Answer one.", "Answer two.");
    const run = await runPanto(["-p", "first question", "second question"], {
      env: { PANTO_HOME: home },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(conversations(server), [
      ["user: first question"],
      ["user: first question", "assistant: Answer one.", "user: second question"],
    ]);
    assert.equal(run.stdout, "Answer two.\n");
  });
});

Deno.test("panto -p --mode json A B: every event of both runs, both answers in order", async () => {
  await withFakeHome(async (server, home) => {
    reply(server, "Answer one.", "Answer two.");
    const run = await runPanto(["-p", "--mode", "json", "first question", "second question"], {
      env: { PANTO_HOME: home },
    });
    assert.equal(run.code, 0, run.stderr);
    const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const answers = events.filter((e) => e.type === "message_complete")
      .map((e) =>
        (e.message.content as { type: string; text?: string }[])
          .map((block) => block.text ?? "").join("")
      );
    assert.deepEqual(answers, ["Answer one.", "Answer two."]);
    assert.equal(events.filter((e) => e.type === "run_complete").length, 2);
  });
});

Deno.test("panto -p @file A B: the file goes with the first prompt only", async () => {
  await withFakeHome(async (server, home) => {
    const project = await Deno.makeTempDir({ prefix: "panto-project-" });
    try {
      await Deno.writeTextFile(join(project, "notes.txt"), "ATTACHED-NOTES\n");
      reply(server, "It lists notes.", "Shorter: notes.");
      const run = await runPanto(["-p", "@notes.txt", "what is in it?", "say it shorter"], {
        cwd: project,
        env: { PANTO_HOME: home },
      });
      assert.equal(run.code, 0, run.stderr);
      const [first, second] = conversations(server);
      assert.equal(first!.length, 1);
      assert.match(first![0]!, /^user: @notes\.txt what is in it\?[^]*ATTACHED-NOTES/);
      assert.equal(second!.at(-1), "user: say it shorter");
      assert.equal(run.stdout, "Shorter: notes.\n");
    } finally {
      await Deno.remove(project, { recursive: true });
    }
  });
});

Deno.test("panto -p A B: a failed first prompt exits 1 and the second is not sent", async () => {
  await withFakeHome(async (server, home) => {
    server.enqueue({
      kind: "http_error",
      status: 401,
      body: { error: { message: "invalid key", type: "authentication_error" } },
    });
    const run = await runPanto(["-p", "first question", "second question"], {
      env: { PANTO_HOME: home },
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /invalid key/);
    assert.equal(server.requests.length, 1);
    assert.equal(run.stdout, "");
  });
});
