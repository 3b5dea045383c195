/**
 * Terminal safety of the non-interactive commands: print mode writes the
 * model's answer raw when piped but sanitized on a terminal, provider error
 * bodies go to stderr with controls escaped, and `panto sessions` never
 * prints a stored prompt's escapes in its table (nor anywhere on a terminal).
 * "On a terminal" runs go through `script`, which gives panto a pty.
 */
import assert from "node:assert/strict";
import { childEnv } from "../support/child_env.ts";
import { commandRuns } from "../support/command_runs.ts";
import { withFakeHome } from "../support/fake_config.ts";
import { runPanto } from "../support/run_panto.ts";
import { shellQuote } from "../support/tmux.ts";

/** Title (OSC 0), screen clear, clipboard write (OSC 52) and 8-bit C1 CSI/OSC. */
const HOSTILE = "\x1b]0;pwned-title\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b2J\x9d2;c1-title\x9c";
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]/;

const scriptAvailable = await commandRuns("script", ["--version"]);
if (!scriptAvailable) {
  console.log("skipped: terminal_safety_cli_test's pty runs need `script` (util-linux) on PATH");
}

/** Runs panto on a pty (util-linux `script`) and returns everything the terminal received. */
async function runOnTerminal(args: readonly string[], home: string): Promise<string> {
  const main = new URL("../../cli/main.ts", import.meta.url).pathname;
  const command = [Deno.execPath(), "run", "-A", "--quiet", main, ...args].map(shellQuote)
    .join(" ");
  const output = await new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    clearEnv: true,
    env: { ...childEnv(home), PANTO_HOME: home, NO_COLOR: "1", TERM: "xterm" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, text + new TextDecoder().decode(output.stderr));
  return text;
}

Deno.test("print mode: a piped answer is exact; a provider error body is escaped on stderr", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: `answer${HOSTILE}end` }] });
    const piped = await runPanto(["-p", "hello"], { env });
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, `answer${HOSTILE}end\n`, "piped output is what the model sent");

    server.enqueue({
      kind: "http_error",
      status: 400,
      body: { error: { message: `bad-start${HOSTILE}bad-end`, type: "invalid_request_error" } },
    });
    const failed = await runPanto(["-p", "hello again"], { env });
    assert.equal(failed.code, 1);
    assert.ok(!CONTROL.test(failed.stderr), JSON.stringify(failed.stderr));
    assert.ok(!failed.stderr.includes("\x1b"), JSON.stringify(failed.stderr));
    assert.match(failed.stderr, /bad-start\\x1b\]0;pwned-title\\x07\\x1b\[2J.*\\x9b2J.*bad-end/);
  });
});

Deno.test({
  name: "print mode: on a terminal the answer is shown without its escapes",
  ignore: !scriptAvailable,
  fn: () =>
    withFakeHome(async (server, home) => {
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: `answer${HOSTILE}end` }] });
      const shown = await runOnTerminal(["-p", "hello"], home);
      assert.ok(!shown.includes("\x1b") && !CONTROL.test(shown), JSON.stringify(shown));
      assert.match(shown, /answerend/);
    }),
});

Deno.test({
  name: "sessions: a stored prompt's escapes stay out of the table and off a terminal",
  ignore: !scriptAvailable,
  fn: () =>
    withFakeHome(async (server, home) => {
      const env = { PANTO_HOME: home };
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
      const saved = await runPanto(["-p", `first-prompt${HOSTILE}`], { env });
      assert.equal(saved.code, 0, saved.stderr);

      const table = await runPanto(["sessions"], { env });
      assert.equal(table.code, 0, table.stderr);
      assert.ok(!CONTROL.test(table.stdout) && !table.stdout.includes("\x1b"), table.stdout);
      assert.match(table.stdout, /first-prompt/);

      const json = await runPanto(["sessions", "--json"], { env });
      const [session] = JSON.parse(json.stdout) as { id: string; lastUserMessage: string }[];
      assert.equal(session?.lastUserMessage, `first-prompt${HOSTILE}`, "--json keeps the data");

      const listed = await runOnTerminal(["sessions"], home);
      assert.ok(!CONTROL.test(listed), JSON.stringify(listed));
      const shown = await runOnTerminal(["sessions", "show", session.id], home);
      assert.ok(!shown.includes("\x1b") && !CONTROL.test(shown), JSON.stringify(shown));
      assert.match(shown, /first-prompt/);
    }),
});
