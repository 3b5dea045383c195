/**
 * Print mode cannot ask: a call of `tools.requireApproval` is refused with
 * a message naming the tool and how to allow it; `--auto-approve` runs it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { requestMessages, textReply, toolCallReply } from "../../support/fake_replies.ts";
import { runPanto } from "../../support/run_panto.ts";

async function withProject(
  body: (fixture: { server: FakeLlmServer; home: string; project: string }) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-project-" });
  try {
    await writeFakeConfig(home, server, {
      retry: { maxRetries: 0 },
      tools: { requireApproval: ["write"] },
    });
    await body({ server, home, project });
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

Deno.test("panto -p: a tool needing approval is refused, named on stderr with how to allow it", async () => {
  await withProject(async ({ server, home, project }) => {
    server.enqueue(
      toolCallReply("call_1", "write", { path: "out.txt", content: "x\n" }),
      textReply("I could not write it."),
    );
    const run = await runPanto(["-p", "write out.txt"], {
      cwd: project,
      env: { PANTO_HOME: home },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "I could not write it.\n");
    assert.match(
      run.stderr,
      /panto: refused a write call: write is in tools\.requireApproval and print mode cannot ask; pass --auto-approve to run it, or remove "write" from tools\.requireApproval/,
    );
    await assert.rejects(Deno.stat(join(project, "out.txt")), Deno.errors.NotFound);
    assert.match(
      requestMessages(server, 1),
      /write was denied: write needs the user's approval \(tools\.requireApproval\)[^"]*--auto-approve/,
    );
  });
});

Deno.test("panto -p --auto-approve: the tool runs without a question", async () => {
  await withProject(async ({ server, home, project }) => {
    server.enqueue(
      toolCallReply("call_1", "write", { path: "out.txt", content: "x\n" }),
      textReply("Written."),
    );
    const run = await runPanto(["-p", "--auto-approve", "write out.txt"], {
      cwd: project,
      env: { PANTO_HOME: home },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Written.\n");
    assert.doesNotMatch(run.stderr, /refused/);
    assert.equal(await Deno.readTextFile(join(project, "out.txt")), "x\n");
  });
});
