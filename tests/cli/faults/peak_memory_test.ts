/**
 * Fault suite, memory: the installed `panto -p --mode json` runs the
 * model's call on each hostile input (`tests/support/hostile_inputs.ts`) to
 * the end, and the program's peak resident set stays under
 * {@linkcode PEAK_BOUND_MB}.
 *
 * What is measured: the program's `VmHWM` (the kernel's high-water mark of
 * its resident set), read from `/proc/<pid>/status` every few milliseconds
 * while it runs — the program being the launcher's child that runs
 * `cli/main.ts`. Being a high-water mark, only growth in the last few
 * milliseconds before the exit could be missed. `/usr/bin/time -f %M`
 * around the command is printed beside it: it reports the largest resident
 * set of any one process of the tree it waited for (`wait4`'s `ru_maxrss`
 * is the largest of the process and its reaped descendants), so it also
 * counts the MCP test server panto starts; it is not asserted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  HOSTILE_INPUTS,
  type HostileInput,
  type HostileRun,
  textReply,
  withHostileRun,
} from "../../support/hostile_inputs.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { programPid, startPanto, watchPeakRss } from "../../support/panto_process.ts";
import { HAS_PROC } from "../../support/processes.ts";

/** The bound on the program's peak resident set. */
const PEAK_BOUND_MB = 500;
/** The longest an uninterrupted run may take (each took under 15 s idle, when fixed). */
const COMPLETE_WITHIN_MS = 60_000;
const HAS_TIME = await Deno.stat("/usr/bin/time").then(() => true, () => false);

/** One measured run, for the table printed at the end. */
interface Figure {
  input: string;
  peakMb: number;
  treeMb: number | undefined;
  runMs: number;
  outcome: string;
}

const mb = (kb: number) => kb / 1024;

async function peakCase(
  panto: string,
  input: HostileInput,
  { server, project, home }: HostileRun,
  figures: Figure[],
): Promise<void> {
  server.enqueue(input.reply, textReply("done"));
  const timeFile = join(home, "time.txt");
  const started = performance.now();
  const run = startPanto(panto, ["-p", `hostile: ${input.name}`, "--mode", "json"], {
    project,
    home,
    ...(HAS_TIME ? { timeFile } : {}),
  });
  const figure: Figure = { input: input.name, peakMb: 0, treeMb: undefined, runMs: 0, outcome: "" };
  figures.push(figure);
  try {
    const program = await programPid(run.pid);
    // On a loaded machine a quick run can end before its process is seen: /usr/bin/time's
    // figure for the whole tree (the launcher and the program) then stands for the peak.
    const peak = program === undefined ? Promise.resolve(0) : watchPeakRss(program);
    let status: Deno.CommandStatus | undefined;
    let failure: unknown;
    try {
      status = await run.exitWithin(COMPLETE_WITHIN_MS, "it started (it had to complete)");
    } catch (error) {
      failure = error;
    }
    figure.runMs = performance.now() - started;
    figure.peakMb = mb(await peak);
    const tree = await Deno.readTextFile(timeFile).catch(() => "");
    const treeKb = Number(tree.trim().split("\n").at(-1));
    if (Number.isFinite(treeKb) && treeKb > 0) figure.treeMb = mb(treeKb);
    if (program === undefined) {
      assert.ok(
        figure.treeMb !== undefined,
        `the program's process was not found and /usr/bin/time gave no figure: ${run.summary()}`,
      );
      figure.peakMb = figure.treeMb;
    }
    figure.outcome = status === undefined
      ? `not done after ${COMPLETE_WITHIN_MS / 1000} s (killed)`
      : `exit ${status.code}`;
    console.log(
      `${input.name}: peak ${figure.peakMb.toFixed(0)} MB (${
        program === undefined
          ? "the tree's, time %M: the program was gone before it was seen"
          : "program's VmHWM"
      })` +
        (figure.treeMb === undefined ? "" : `, ${figure.treeMb.toFixed(0)} MB (time %M, tree)`) +
        `; ${figure.outcome} after ${figure.runMs.toFixed(0)} ms`,
    );
    if (failure !== undefined) throw failure;
    await run.stdoutClosed;
    assert.equal(status?.code, 0, await run.stderr);
    const done = run.events.filter((event) =>
      event.type === "tool_dispatch_complete" && input.tools.includes(event.call?.name ?? "")
    );
    assert.equal(done.length, input.tools.length, `every call completed: ${run.summary()}`);
    assert.equal(run.events.at(-1)?.type, "run_complete", run.summary());
    assert.ok(
      figure.peakMb < PEAK_BOUND_MB,
      `the program's peak resident set was ${figure.peakMb.toFixed(0)} MB`,
    );
  } finally {
    await run.dispose();
  }
}

Deno.test({
  name:
    `fault suite, memory: each hostile tool call completes with the program under ${PEAK_BOUND_MB} MB`,
  ignore: !HAS_PROC,
  async fn(t) {
    const figures: Figure[] = [];
    await withInstalledPanto(async (panto) => {
      for (const input of HOSTILE_INPUTS) {
        await t.step(input.name, async () => {
          await withHostileRun(input, (run) => peakCase(panto, input, run, figures));
        });
      }
    });
    console.log(
      [
        "input | program peak (VmHWM) | tree peak (time %M) | run | outcome",
        ...figures.map((f) =>
          `${f.input} | ${f.peakMb.toFixed(0)} MB | ${
            f.treeMb === undefined ? "-" : `${f.treeMb.toFixed(0)} MB`
          } | ${f.runMs.toFixed(0)} ms | ${f.outcome}`
        ),
      ].join("\n"),
    );
  },
});
