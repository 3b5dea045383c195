/**
 * Fault suite, print mode: the installed `panto -p --mode json` is stopped
 * by SIGINT and SIGTERM while the model's call on each hostile input
 * (`tests/support/hostile_inputs.ts`) runs, and exits at once; `panto -c -p`
 * in the same project and home then answers (the session stays usable).
 *
 * How the signals are sent: SIGINT to the process group of the launcher
 * (started as a session of its own), as a terminal's ctrl+c reaches the
 * launcher and the program alike (the launcher ignores SIGINT: it only
 * outlives the program); SIGTERM to the launcher alone, as `kill` sends it
 * (the launcher passes it on to the program).
 *
 * The exit code is always 128 + the signal's number (130, 143), never 0:
 * the model's reply after the hostile call never ends (a stalled stream),
 * so the run cannot finish on its own. The signal comes as soon as the
 * JSON events show the call started (`tool_dispatch_start`): it finds the
 * tool running, or — when the tool was already done by then — the request
 * that sends its result. The figures printed say which.
 *
 * The target is an exit within 1 s of the signal; the assertion
 * allows {@linkcode EXIT_BOUND_MS} for a saturated machine and the measured
 * latency is printed for each case.
 */
import assert from "node:assert/strict";
import {
  dropPendingReplies,
  HOSTILE_INPUTS,
  type HostileInput,
  type HostileRun,
  STALLED_REPLY,
  textReply,
  withHostileRun,
} from "../../support/hostile_inputs.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { killGroup, programPid, startPanto } from "../../support/panto_process.ts";
import { HAS_PROC, waitUntilGone } from "../../support/processes.ts";

/** The longest a signalled panto may take to exit (the target is 1 s). */
const EXIT_BOUND_MS = 10_000;
/** The longest wait for the hostile call to start, or for `-c -p hi` to answer. */
const STEP_DEADLINE_MS = 60_000;

/** How each signal is sent, and the exit code it must give. */
const SIGNALS: readonly { signal: Deno.Signal; code: number; to: "group" | "launcher" }[] = [
  { signal: "SIGINT", code: 130, to: "group" },
  { signal: "SIGTERM", code: 143, to: "launcher" },
];

/** One measured case, for the table printed at the end. */
interface Figure {
  input: string;
  signal: string;
  exitMs: number;
  code: number;
  toolDone: boolean;
}

/** Whether every call of `input` reported completion among `events`. */
function allCallsDone(input: HostileInput, events: readonly { type: string }[]): boolean {
  return events.filter((event) => event.type === "tool_dispatch_complete").length >=
    input.tools.length;
}

async function interruptCase(
  panto: string,
  input: HostileInput,
  { signal, code, to }: (typeof SIGNALS)[number],
  { server, project, home }: HostileRun,
): Promise<Figure> {
  server.enqueue(input.reply, STALLED_REPLY);
  const prompt = `hostile: ${input.name}`;
  const run = startPanto(panto, ["-p", prompt, "--mode", "json"], { project, home });
  try {
    const program = HAS_PROC ? await programPid(run.pid) : undefined;
    await run.waitForEvent(
      `tool_dispatch_start of ${input.tools.join(" or ")}`,
      (event) =>
        event.type === "tool_dispatch_start" && input.tools.includes(event.call?.name ?? ""),
      STEP_DEADLINE_MS,
    );
    const toolDone = allCallsDone(input, run.events);
    const signalled = performance.now();
    if (to === "group") killGroup(run.pid, signal);
    else Deno.kill(run.pid, signal);
    const status = await run.exitWithin(EXIT_BOUND_MS, `${signal}`);
    const exitMs = performance.now() - signalled;
    console.log(
      `${input.name} ${signal}: ${exitMs.toFixed(0)} ms (exit ${status.code}; ` +
        `tool ${toolDone ? "already done" : "running"} at the signal)`,
    );
    const stderr = await run.stderr;
    assert.equal(status.code, code, `exit code after ${signal}; stderr: ${stderr}`);
    assert.match(stderr, /panto: aborted/);
    if (program !== undefined) await waitUntilGone(program, "the program", 5_000);
    await run.stdoutClosed;
    assert.ok(exitMs < EXIT_BOUND_MS, `exited ${exitMs.toFixed(0)} ms after ${signal}`);

    // The session stays usable: continued, it answers.
    await dropPendingReplies(server);
    server.enqueue(textReply("still here"));
    const again = startPanto(panto, ["-c", "-p", "hi"], { project, home });
    try {
      const resumed = await again.exitWithin(STEP_DEADLINE_MS, "-c -p hi started");
      await again.stdoutClosed;
      const againErr = await again.stderr;
      assert.equal(resumed.code, 0, `panto -c -p hi: ${againErr}`);
      assert.deepEqual(again.otherLines, ["still here"], againErr);
      const sent = JSON.stringify(server.requests.at(-1)?.body);
      assert.ok(sent.includes(prompt), "-c continued the interrupted session");
      console.log(`${input.name} ${signal}: panto -c -p hi exit 0 (request ${sent.length} B)`);
    } finally {
      await again.dispose();
    }
    return { input: input.name, signal, exitMs, code: status.code, toolDone };
  } finally {
    await run.dispose();
  }
}

Deno.test({
  name:
    "fault suite, print mode: SIGINT and SIGTERM stop panto during each hostile tool call at once; -c -p then answers",
  ignore: Deno.build.os === "windows",
  async fn(t) {
    const figures: Figure[] = [];
    await withInstalledPanto(async (panto) => {
      for (const input of HOSTILE_INPUTS) {
        for (const how of SIGNALS) {
          await t.step(`${input.name}, ${how.signal}`, async () => {
            await withHostileRun(input, async (run) => {
              figures.push(await interruptCase(panto, input, how, run));
            });
          });
        }
      }
    });
    console.log(
      [
        "input | signal | exit after signal | exit code | tool at the signal",
        ...figures.map((f) =>
          `${f.input} | ${f.signal} | ${f.exitMs.toFixed(0)} ms | ${f.code} | ${
            f.toolDone ? "done" : "running"
          }`
        ),
      ].join("\n"),
    );
  },
});
