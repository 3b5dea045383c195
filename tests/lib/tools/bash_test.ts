import assert from "node:assert/strict";
import { bashTool, splitBashResult } from "../../../lib/tools/bash.ts";
import { call, withProject } from "./tool_fixture.ts";

const hasProc = await Deno.stat("/proc/self/stat").then(() => true, () => false);
if (!hasProc) {
  console.log("skipped: process-group tests need /proc (Linux) to check that processes are gone");
}

/** True when the process no longer runs (absent, or a zombie nobody reaped). */
async function isGone(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const text = await Deno.readTextFile(path).catch(() => "");
    if (text.trim()) return text.trim();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${path} was never written`);
}

Deno.test("bash: stdout and stderr come back interleaved in arrival order", async () => {
  await withProject({}, async (root) => {
    const result = await call(bashTool({ root }), {
      command: "echo one; sleep 0.25; echo two >&2; sleep 0.25; echo three",
    });
    assert.deepEqual(result, { text: "one\ntwo\nthree", isError: false });
  });
});

Deno.test("bash: runs in the working directory; empty output and exit codes are reported", async () => {
  await withProject({}, async (root) => {
    const tool = bashTool({ root });
    assert.equal((await call(tool, { command: "pwd" })).text, root);
    assert.deepEqual(await call(tool, { command: "true" }), {
      text: "(no output)",
      isError: false,
    });
    assert.deepEqual(await call(tool, { command: "echo bad; exit 3" }), {
      text: "bad\n\nExit code: 3",
      isError: true,
    });
  });
});

Deno.test("bash: long output keeps the tail with a note", async () => {
  await withProject({}, async (root) => {
    const result = await call(bashTool({ root }), { command: "seq 1 5000" });
    assert.ok(
      result.text.startsWith("[Output truncated: showing lines 3001-5000 of 5000 ("),
      result.text.slice(0, 200),
    );
    assert.match(result.text, /run the command again with its output filtered/);
    assert.ok(result.text.endsWith("\n4999\n5000"));
    assert.ok(!result.text.includes("\n3000\n"));
  });
});

Deno.test("bash: output beyond the in-memory buffer still reports the true totals", async () => {
  await withProject({}, async (root) => {
    const result = await call(bashTool({ root }), { command: "seq 1 200000" });
    assert.match(
      result.text,
      /^\[Output truncated: showing lines 198001-200000 of 200000 \(1\.\d MB in all\)/,
    );
    assert.ok(result.text.endsWith("\n200000"));
  });
});

Deno.test({
  name: "bash: a timeout kills the command and its grandchildren",
  ignore: !hasProc,
  fn: async () => {
    await withProject({}, async (root) => {
      const started = Date.now();
      const result = await call(bashTool({ root, timeoutSeconds: 600 }), {
        command: "sleep 300 & echo $! > grandchild.pid; echo waiting; wait",
        timeout: 0.5,
      });
      // Generous for a busy machine, and long before the sleep would end.
      assert.ok(Date.now() - started < 60_000, "returned before the sleep ended");
      assert.equal(result.isError, true);
      assert.match(result.text, /^waiting\n\nThe command timed out after 0\.5 s and was killed/);
      const pid = Number(await Deno.readTextFile(`${root}/grandchild.pid`));
      assert.ok(await isGone(pid), `grandchild ${pid} still runs`);
    });
  },
});

Deno.test({
  name: "bash: the default timeout comes from the options",
  ignore: !hasProc,
  fn: async () => {
    await withProject({}, async (root) => {
      const result = await call(bashTool({ root, timeoutSeconds: 0.3 }), { command: "sleep 10" });
      assert.match(result.text, /timed out after 0\.3 s/);
    });
  },
});

Deno.test({
  name: "bash: an abort kills the whole process group, grandchildren included",
  ignore: !hasProc,
  fn: async () => {
    await withProject({}, async (root) => {
      const abort = new AbortController();
      const running = call(bashTool({ root }), {
        command: "sleep 30 & echo $! > grandchild.pid; sleep 30",
      }, abort.signal);
      const pid = Number(await waitForFile(`${root}/grandchild.pid`));
      assert.equal(await isGone(pid), false);
      abort.abort();
      const result = await running;
      assert.equal(result.isError, true);
      assert.match(result.text, /The command was aborted and killed\.$/);
      assert.ok(await isGone(pid), `grandchild ${pid} still runs`);
    });
  },
});

Deno.test("bash: a background job holding the output pipe does not hang the call", async () => {
  await withProject({}, async (root) => {
    const started = Date.now();
    const result = await call(bashTool({ root }), { command: "sleep 300 & echo $!" });
    const pid = Number(result.text);
    try {
      // Generous for a busy machine, and long before the background sleep would end.
      assert.ok(Date.now() - started < 60_000, "returned soon after the shell exited");
      assert.ok(pid > 0, result.text);
      assert.equal(result.isError, false);
    } finally {
      if (pid > 0) Deno.kill(pid, "SIGKILL");
    }
  });
});

Deno.test("bash: an already aborted call does not start", async () => {
  await withProject({}, async (root) => {
    const abort = new AbortController();
    abort.abort(new Error("turn cancelled"));
    const result = await call(bashTool({ root }), { command: "touch started" }, abort.signal);
    assert.deepEqual(result, { text: "turn cancelled", isError: true });
    assert.equal(await Deno.stat(`${root}/started`).then(() => true, () => false), false);
  });
});

Deno.test("bash: a missing shell is explained", async () => {
  await withProject({}, async (root) => {
    const result = await call(bashTool({ root, shell: "panto-no-such-shell" }), {
      command: "true",
    });
    assert.deepEqual(result, { text: "panto-no-such-shell was not found on PATH", isError: true });
  });
});

Deno.test("bash: output is reported through onUpdate while the command runs", async () => {
  await withProject({}, async (root) => {
    const updates: string[] = [];
    // The command waits (up to 60 s) for a file that only the first line's update creates: it
    // says "released" only when that update came while it ran.
    const command = "echo first; for i in $(seq 1200); do [ -e go ] && break; sleep 0.05; done; " +
      "[ -e go ] && echo released";
    const output = await bashTool({ root }).execute({ command }, {
      signal: new AbortController().signal,
      callId: "c",
      onUpdate: (partial) => {
        updates.push(String(partial));
        if (String(partial) === "first\n") Deno.writeTextFileSync(`${root}/go`, "");
      },
    });
    assert.ok(updates.includes("first\n"), `updates: ${JSON.stringify(updates)}`);
    assert.deepEqual(output, [{ type: "text", text: "first\nreleased" }]);
  });
});

Deno.test("bash: a progress report carries the last whole lines of long output", async () => {
  await withProject({}, async (root) => {
    let last = "";
    await bashTool({ root }).execute({ command: "seq 1 100000; sleep 0.3" }, {
      signal: new AbortController().signal,
      callId: "c",
      onUpdate: (partial) => last = String(partial),
    });
    assert.ok(last.length <= 8 * 1024, `${last.length} characters`);
    assert.ok(last.endsWith("\n100000\n"), last.slice(-40));
    assert.match(last, /^\d+\n/, "starts at a whole line");
  });
});

Deno.test("bash: output produced before an abort is kept in the result", async () => {
  await withProject({}, async (root) => {
    const abort = new AbortController();
    const running = call(bashTool({ root }), {
      command: "echo before; echo ready > ready.txt; sleep 30",
    }, abort.signal);
    await waitForFile(`${root}/ready.txt`);
    abort.abort();
    const result = await running;
    assert.deepEqual(result, {
      text: "before\n\nThe command was aborted and killed.",
      isError: true,
    });
  });
});

Deno.test("bash: splitBashResult separates the output from how the command ended", () => {
  assert.deepEqual(splitBashResult("a\nb"), { output: "a\nb", ending: undefined });
  assert.deepEqual(splitBashResult("bad\n\nExit code: 3"), { output: "bad", ending: "exit 3" });
  assert.deepEqual(splitBashResult("x\n\nThe command was aborted and killed."), {
    output: "x",
    ending: "aborted",
  });
  assert.deepEqual(
    splitBashResult("x\n\nThe command timed out after 2 s and was killed with everything."),
    { output: "x", ending: "timed out" },
  );
  assert.deepEqual(splitBashResult("(no output)\n\nThe command was killed by SIGKILL."), {
    output: "(no output)",
    ending: "killed by SIGKILL",
  });
  assert.deepEqual(splitBashResult("bash failed: no shell"), {
    output: "bash failed: no shell",
    ending: undefined,
  });
});
