/**
 * Start-up with many skills: `-p "…"` spawn to exit, with no skills and with
 * 1,000 of them in `~/.agents/skills` (a directory both panto and pi read),
 * panto beside pi, against the fake LLM server of `cli_bench.ts` (the
 * programs are prepared by `cli_harness.ts` the same way). Each skill is a
 * directory with a `SKILL.md` of a short front matter and a 4 KiB body:
 * panto reads only the front matter at start, pi reads whole files. Every
 * run with skills checks that the last skill reached the model's system
 * prompt, so a program that skipped them would fail, not look fast.
 * panto runs in a third state too: no skills, but the same skills section
 * given as `$PANTO_HOME/APPEND_SYSTEM.md`, which separates what finding the
 * skills costs from what the larger request costs. Rounds alternate the
 * states (renaming the directory in and out of place) and the programs, so
 * load changes hit all alike; the report gives medians and panto's target:
 * with skills within 10% of without. With `python3` on PATH each run is
 * started by a few lines of Python that time it and read its CPU time (user
 * and system, from `wait4`): on a busy machine the CPU time is the steadier
 * figure. Without it the CPU columns say n/a.
 *
 * Run: `deno run -A --lock=bench/bench.lock bench/skills_bench.ts`. Knobs:
 * `BENCH_SKILLS_RUNS` (rounds, 7), `BENCH_SKILLS_COUNT` (1000),
 * `BENCH_PI_NODE_PREFIX` (an `npm install --prefix` of pi for its node
 * column; default `/tmp/trial` when it holds one).
 *
 * @module
 */
import { join } from "node:path";
import { skillsPromptSection } from "../cli/skills/skills_prompt.ts";
import type { FakeLlmServer } from "../tests/support/fake_llm_server.ts";
import {
  asLaunched,
  drainReplies,
  errorText,
  knob,
  loadAverage,
  median,
  type Program,
  timeRun,
  withPrograms,
} from "./cli_harness.ts";

const RUNS = knob("BENCH_SKILLS_RUNS", 7);
const COUNT = knob("BENCH_SKILLS_COUNT", 1000);
const PI_NODE_PREFIX = Deno.env.get("BENCH_PI_NODE_PREFIX") ??
  (await Deno.stat("/tmp/trial/node_modules/@mariozechner/pi-coding-agent").then(
    () => "/tmp/trial",
    () => undefined,
  ));
const TOKEN = "SKILLS-OK";

/**
 * Runs a command, then writes its wall time and CPU time (ms) as the last
 * line of stderr; its own start is not timed.
 */
const TIMER = `
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = (time.perf_counter() - start) * 1000
sys.stderr.write("\\nBENCH-TIMES %.3f %.3f\\n" % (wall, (usage.ru_utime + usage.ru_stime) * 1000))
sys.exit(os.waitstatus_to_exitcode(status))
`;
const PYTHON = await new Deno.Command("python3", { args: ["-c", "pass"] }).output().then(
  (out) => out.success,
  () => false,
);

/** One run's wall time and, when python3 timed it, CPU time (ms). */
interface Sample {
  ms: number;
  cpuMs?: number;
}

/** What each benchmark run starts with: no skills, the skills, or (panto) only their prompt section. */
type State = "none" | "many" | "section";

/** The description of skill `n`. */
function description(n: number): string {
  return `Handles task number ${n} of the benchmark; use it when the user asks for task ${n}.`;
}

/** Writes `count` skills into `dir`, each `skill-N/SKILL.md` with a 4 KiB body. */
async function writeSkills(dir: string, count: number): Promise<void> {
  const body = "Step by step instructions for this task.\n".repeat(100);
  for (let n = 0; n < count; n++) {
    const name = `skill-${n}`;
    await Deno.mkdir(join(dir, name), { recursive: true });
    await Deno.writeTextFile(
      join(dir, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: ${description(n)}\n---\n\n# Task ${n}\n\n${body}`,
    );
  }
}

/** The skills section panto's prompt gets from the skills of `dir` (once they are in place). */
function sectionOf(dir: string, count: number): string {
  return skillsPromptSection(Array.from({ length: count }, (_, n) => {
    const baseDir = join(dir, `skill-${n}`);
    const filePath = join(baseDir, "SKILL.md");
    return {
      name: `skill-${n}`,
      description: description(n),
      filePath,
      baseDir,
      scope: "user",
      modelInvocable: true,
    };
  }));
}

/** Where panto's `APPEND_SYSTEM.md` goes. */
function appendFile(program: Program): string {
  return join(program.env.PANTO_HOME!, "APPEND_SYSTEM.md");
}

/** The skills directory of a program's HOME, and where it is kept while "off". */
function skillDirs(program: Program): { on: string; off: string } {
  const home = program.env.HOME!;
  return { on: join(home, ".agents", "skills"), off: join(home, ".agents", "skills-off") };
}

/** One `-p` run's times; throws when it fails or the prompt lacks the skills it should have (or has them without). */
async function printRun(
  program: Program,
  cwd: string,
  server: FakeLlmServer,
  state: State,
): Promise<Sample> {
  await drainReplies(server);
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: TOKEN }] });
  const args = ["-p", "Say hello in one line."];
  const launched = asLaunched(program, args);
  const timed = PYTHON
    ? { ...launched, argv: ["python3", "-c", TIMER, ...launched.argv] }
    : launched;
  const { ms, stdout, stderr } = await timeRun(timed, args, cwd);
  if (!stdout.includes(TOKEN)) {
    throw new Error(`${program.name} -p printed ${JSON.stringify(stdout.slice(0, 200))}`);
  }
  const prompt = JSON.stringify(server.requests.at(-1)?.body ?? "");
  const listed = state !== "none";
  if (listed !== prompt.includes(`<name>skill-${COUNT - 1}</name>`)) {
    throw new Error(`${program.name}'s system prompt ${listed ? "lacks" : "has"} the skills`);
  }
  const times = stderr.match(/(?:^|\n)BENCH-TIMES ([\d.]+) ([\d.]+)$/);
  return times ? { ms: Number(times[1]), cpuMs: Number(times[2]) } : { ms };
}

/** Puts the state in place for a program, runs it and takes the state away again. */
async function runIn(
  state: State,
  program: Program,
  cwd: string,
  server: FakeLlmServer,
  section: string,
): Promise<Sample> {
  const dirs = skillDirs(program);
  if (state === "many") await Deno.rename(dirs.off, dirs.on);
  if (state === "section") await Deno.writeTextFile(appendFile(program), section);
  try {
    return await printRun(program, cwd, server, state);
  } finally {
    if (state === "many") await Deno.rename(dirs.on, dirs.off);
    if (state === "section") await Deno.remove(appendFile(program));
  }
}

/** Medians of two states, wall then CPU, and the change: table cells joined by ` | `. */
function compared(before: Sample[], after: Sample[]): string {
  const cells = (pick: (sample: Sample) => number | undefined): string[] => {
    const [a, b] = [before, after].map((samples) => {
      const values = samples.map(pick).filter((value) => value !== undefined);
      return values.length === samples.length ? median(values) : NaN;
    }) as [number, number];
    if (Number.isNaN(a) || Number.isNaN(b)) return ["n/a", "n/a", ""];
    return [`${a.toFixed(0)} ms`, `${b.toFixed(0)} ms`, `${((b / a - 1) * 100).toFixed(1)}%`];
  };
  return [...cells((s) => s.ms), ...cells((s) => s.cpuMs)].join(" | ");
}

async function main(): Promise<void> {
  await withPrograms("panto-skills-bench-", PI_NODE_PREFIX, async (site) => {
    const { programs, columns, piVersion, cwd, server } = site;
    for (const program of programs) await writeSkills(skillDirs(program).off, COUNT);
    const samples = new Map<string, Record<State, Sample[]>>();
    const failures = new Map<string, string>();
    const states: State[] = ["none", "many", "section"];
    for (let round = 0; round < RUNS; round++) {
      for (const state of round % 2 === 0 ? states : states.toReversed()) {
        for (const program of programs) {
          if (failures.has(program.name) || (state === "section" && program.name !== "panto")) {
            continue;
          }
          try {
            const section = sectionOf(skillDirs(program).on, COUNT);
            const sample = await runIn(state, program, cwd, server, section);
            const entry = samples.get(program.name) ?? { none: [], many: [], section: [] };
            entry[state].push(sample);
            samples.set(program.name, entry);
          } catch (error) {
            failures.set(program.name, errorText(error));
          }
        }
      }
    }
    console.log(
      `-p spawn to exit, no skills vs ${COUNT} skills in ~/.agents/skills (median of ${RUNS}; pi ${piVersion}; load ${await loadAverage()})\n`,
    );
    console.log(
      "| program | no skills | with skills | change | CPU, no skills | CPU, with skills | CPU change |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    for (const column of columns) {
      const failure = "reason" in column ? column.reason : failures.get(column.name);
      const entry = samples.get(column.name);
      if (failure !== undefined || !entry) {
        console.log(`| ${column.name} | n/a (${failure}) | | | | | |`);
        continue;
      }
      console.log(`| ${column.name} | ${compared(entry.none, entry.many)} |`);
    }
    const panto = samples.get("panto");
    if (panto && !failures.has("panto")) {
      console.log(
        `\npanto with no skills but their section as APPEND_SYSTEM.md (the larger request alone): ${
          compared(panto.none, panto.section).replaceAll(" | ", ", ")
        }`,
      );
      const within = median(panto.many.map((s) =>
        s.ms
      )) <= median(panto.none.map((s) => s.ms)) * 1.1;
      console.log(
        `panto's target (with skills within 10% of without, wall time): ${
          within ? "met" : "MISSED"
        }`,
      );
    }
  });
}

await main();
