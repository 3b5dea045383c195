/**
 * Start-up with many skills: `-p "…"` spawn to exit, with no skills and with
 * 1,000 of them in `~/.agents/skills` (a directory both panto and pi read),
 * panto beside pi, against the fake LLM server of `cli_bench.ts` (the
 * programs are prepared by `cli_harness.ts` the same way). Each skill is a
 * directory with a `SKILL.md` of a short front matter and a 4 KiB body:
 * panto reads only the front matter at start, pi reads whole files. Every
 * run with skills checks that the last skill reached the model's system
 * prompt, so a program that skipped them would fail, not look fast.
 * Rounds alternate the two states (renaming the directory in and out of
 * place) and the programs, so load changes hit all alike; the report gives
 * medians and panto's target: with skills within 10% of without.
 *
 * Run: `deno run -A --lock=bench/bench.lock bench/skills_bench.ts`. Knobs:
 * `BENCH_SKILLS_RUNS` (rounds, 7), `BENCH_SKILLS_COUNT` (1000),
 * `BENCH_PI_NODE_PREFIX` (an `npm install --prefix` of pi for its node
 * column; default `/tmp/trial` when it holds one).
 *
 * @module
 */
import { join } from "node:path";
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

/** Writes `count` skills into `dir`, each `skill-N/SKILL.md` with a 4 KiB body. */
async function writeSkills(dir: string, count: number): Promise<void> {
  const body = "Step by step instructions for this task.\n".repeat(100);
  for (let n = 0; n < count; n++) {
    const name = `skill-${n}`;
    await Deno.mkdir(join(dir, name), { recursive: true });
    await Deno.writeTextFile(
      join(dir, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Handles task number ${n} of the benchmark; use it when the user asks for task ${n}.\n---\n\n# Task ${n}\n\n${body}`,
    );
  }
}

/** The skills directory of a program's HOME, and where it is kept while "off". */
function skillDirs(program: Program): { on: string; off: string } {
  const home = program.env.HOME!;
  return { on: join(home, ".agents", "skills"), off: join(home, ".agents", "skills-off") };
}

/** One `-p` run: wall time (ms); throws when it fails or (with skills) the prompt lacks them. */
async function printRun(
  program: Program,
  cwd: string,
  server: FakeLlmServer,
  withSkills: boolean,
): Promise<number> {
  await drainReplies(server);
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: TOKEN }] });
  const args = ["-p", "Say hello in one line."];
  const { ms, stdout } = await timeRun(asLaunched(program, args), args, cwd);
  if (!stdout.includes(TOKEN)) {
    throw new Error(`${program.name} -p printed ${JSON.stringify(stdout.slice(0, 200))}`);
  }
  const prompt = JSON.stringify(server.requests.at(-1)?.body ?? "");
  if (withSkills !== prompt.includes(`<name>skill-${COUNT - 1}</name>`)) {
    throw new Error(`${program.name}'s system prompt ${withSkills ? "lacks" : "has"} the skills`);
  }
  return ms;
}

async function main(): Promise<void> {
  await withPrograms("panto-skills-bench-", PI_NODE_PREFIX, async (site) => {
    const { cwd, server, programs, columns, piVersion } = site;
    for (const program of programs) await writeSkills(skillDirs(program).off, COUNT);
    const samples = new Map<string, { none: number[]; many: number[] }>();
    const failures = new Map<string, string>();
    for (let round = 0; round < RUNS; round++) {
      for (const withSkills of round % 2 === 0 ? [false, true] : [true, false]) {
        for (const program of programs) {
          if (failures.has(program.name)) continue;
          const dirs = skillDirs(program);
          if (withSkills) await Deno.rename(dirs.off, dirs.on);
          try {
            const ms = await printRun(program, cwd, server, withSkills);
            const entry = samples.get(program.name) ?? { none: [], many: [] };
            (withSkills ? entry.many : entry.none).push(ms);
            samples.set(program.name, entry);
          } catch (error) {
            failures.set(program.name, errorText(error));
          } finally {
            if (withSkills) await Deno.rename(dirs.on, dirs.off);
          }
        }
      }
    }
    console.log(
      `-p spawn to exit, no skills vs ${COUNT} skills in ~/.agents/skills (median of ${RUNS}; pi ${piVersion}; load ${await loadAverage()})\n`,
    );
    console.log("| program | no skills | with skills | change |");
    console.log("|---|---:|---:|---:|");
    for (const column of columns) {
      const failure = "reason" in column ? column.reason : failures.get(column.name);
      const entry = samples.get(column.name);
      if (failure !== undefined || !entry) {
        console.log(`| ${column.name} | n/a (${failure}) | | |`);
        continue;
      }
      const none = median(entry.none);
      const many = median(entry.many);
      const change = ((many / none - 1) * 100).toFixed(1);
      console.log(
        `| ${column.name} | ${none.toFixed(0)} ms | ${many.toFixed(0)} ms | ${change}% |`,
      );
    }
    const panto = samples.get("panto");
    if (panto && !failures.has("panto")) {
      const within = median(panto.many) <= median(panto.none) * 1.1;
      console.log(
        `\npanto's target (with skills within 10% of without): ${within ? "met" : "MISSED"}`,
      );
    }
  });
}

await main();
