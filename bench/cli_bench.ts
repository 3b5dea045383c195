/**
 * panto beside pi (`@mariozechner/pi-coding-agent`, the version pinned in
 * `pi_coding_agent.ts`) as whole programs, in the same run, against the same fake
 * LLM server (`tests/support/fake_llm_server.ts`, Anthropic Messages protocol
 * on loopback):
 *
 * 1. `--version`: process spawn to exit (median);
 * 2. interactive start: spawn in a tmux pane until a captured screen shows the
 *    welcome and the prompt with its footer (median; screen polled every 10 ms);
 * 3. memory: VmRSS of the program (and any children) at idle, 1 s after that;
 * 4. `-p "…"`: spawn to exit of a one-line prompt the fake server answers,
 *    and the program's peak RSS meanwhile (GNU time's maximum resident set
 *    size, `/usr/bin/time -f %M`);
 * 5. streaming: a saved session of 300 earlier messages is resumed, then a
 *    1,000-line Markdown answer streams in 20-character deltas every 2 ms;
 *    CPU time of the program (/proc utime+stime, children included) and bytes
 *    it wrote to its pty (tmux pipe-pane) from Enter until the screen is idle.
 *
 * How pi is run: `deno run -A npm:@mariozechner/pi-coding-agent@<pin>` (the
 * package's only bin, `pi`, is its default entry, so no subpath is needed;
 * Deno skips the install scripts of pi's dependencies, which pi does not need
 * here). With `BENCH_PI_NODE_PREFIX=DIR`, after
 * `npm install --prefix DIR @mariozechner/pi-coding-agent@<pin>`, it is also
 * run with the machine's `node` (pi's `engines` asks for Node >= 20.6.0).
 * Each program gets its own temporary HOME: panto a `$PANTO_HOME/config.json`
 * naming the fake provider, pi `~/.pi/agent/models.json` and `settings.json`
 * with a custom `anthropic-messages` provider, and `PI_OFFLINE=1` so pi makes
 * no startup network request (version check, tool downloads). Both save
 * sessions as they do by default, run in the same empty working directory
 * with `TERM=xterm-256color COLORTERM=truecolor` on a 100×40 pane.
 *
 * Run: `deno run -A --lock=bench/bench.lock bench/cli_bench.ts`. Knobs (environment):
 * `BENCH_CLI_RUNS` (`--version` runs, 10), `BENCH_CLI_UI_RUNS` (5),
 * `BENCH_CLI_PRINT_RUNS` (5), `BENCH_CLI_STREAM_RUNS` (3),
 * `BENCH_CLI_HISTORY` (earlier messages, 300), `BENCH_CLI_ANSWER_LINES` (1000),
 * `BENCH_CLI_DELTA_CHARS` (20), `BENCH_CLI_DELTA_MS` (2), `BENCH_CLI_QUICK=1` (only
 * `--version` and `-p`),
 * `BENCH_PI_NODE_PREFIX` (see above).
 *
 * @module
 */
import type { FakeLlmServer } from "../tests/support/fake_llm_server.ts";
import { tmuxAvailable } from "../tests/support/tmux.ts";
import {
  ANSWER_END,
  answerStream,
  asLaunched,
  drainReplies,
  errorText,
  GNU_TIME,
  gnuTimeAvailable,
  knob,
  loadAverage,
  measureStream,
  median,
  type PaneSize,
  type Program,
  programPid,
  readyPattern,
  rssKiB,
  sleep,
  startInPane,
  timeRun,
  type Unavailable,
  waitForScreen,
  withPrograms,
} from "./cli_harness.ts";

const VERSION_RUNS = knob("BENCH_CLI_RUNS", 10);
const UI_RUNS = knob("BENCH_CLI_UI_RUNS", 5);
const PRINT_RUNS = knob("BENCH_CLI_PRINT_RUNS", 5);
const STREAM_RUNS = knob("BENCH_CLI_STREAM_RUNS", 3);
const HISTORY_MESSAGES = knob("BENCH_CLI_HISTORY", 300, 2);
const ANSWER_LINES = knob("BENCH_CLI_ANSWER_LINES", 1000, 2);
const DELTA_CHARS = knob("BENCH_CLI_DELTA_CHARS", 20);
const DELTA_MS = knob("BENCH_CLI_DELTA_MS", 2, 0);
const PI_NODE_PREFIX = Deno.env.get("BENCH_PI_NODE_PREFIX");
/** Only the rows without a screen (`--version`, `-p`): a quick look at start-up cost. */
const QUICK = Deno.env.get("BENCH_CLI_QUICK") === "1";

const PANE: PaneSize = { cols: 100, rows: 40 };

type Cell = { value: number } | { na: string };

interface Row {
  what: string;
  unit: "ms" | "MiB" | "KiB";
  cells: Map<string, Cell>;
}

// --- the answer ----------------------------------------------------------------

/** A Markdown answer of exactly `lines` lines: headings, paragraphs, lists, code. */
function longAnswer(lines: number): string {
  const section = (n: number) => [
    `## Step ${n}`,
    "",
    `Step ${n} explains the change with **bold** text and \`inline code\`,`,
    "then goes on for a second line of the same paragraph.",
    "",
    `- item ${n}.1 with a [link](https://example.com/${n})`,
    `- item ${n}.2`,
    "",
    "```ts",
    `export function step${n}(input: string): number {`,
    `  return input.trim().length + ${n};`,
    "}",
    "```",
    "",
  ];
  const out: string[] = [];
  for (let n = 0; out.length + section(n).length <= lines - 2; n++) out.push(...section(n));
  while (out.length < lines - 2) out.push(`- note ${out.length}`);
  out.push("", ANSWER_END);
  return out.slice(-lines).join("\n");
}

// --- running -------------------------------------------------------------------

async function measureVersion(program: Program, cwd: string): Promise<number> {
  // pi prints it on stderr when stdin is not a terminal (it keeps stdout for print mode).
  const { ms, stdout, stderr } = await timeRun(program, ["--version"], cwd);
  if (!/\d+\.\d+\.\d+/.test(stdout + stderr)) {
    throw new Error(`${program.name} --version printed ${JSON.stringify(stdout + stderr)}`);
  }
  return ms;
}

const PRINT_TOKEN = "PRINT-OK";

/** `-p` wall time (ms) and, when GNU time is there, peak RSS (MiB). */
async function measurePrint(
  program: Program,
  cwd: string,
  server: FakeLlmServer,
): Promise<Record<string, number>> {
  await drainReplies(server);
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: `Hello! ${PRINT_TOKEN}` }] });
  const args = ["-p", "Say hello in one line."];
  const run = await timeRun(asLaunched(program, args), args, cwd, gnuTimeAvailable);
  if (!run.stdout.includes(PRINT_TOKEN)) {
    throw new Error(`${program.name} -p printed ${JSON.stringify(run.stdout.slice(0, 200))}`);
  }
  return { ms: run.ms, ...(run.peakKiB === undefined ? {} : { peakMiB: run.peakKiB / 1024 }) };
}

/** Start-up time to a ready screen (ms) and RSS at idle 1 s later (KiB). */
async function measureStart(
  program: Program,
  cwd: string,
): Promise<{ ms: number; rss: number }> {
  const { tmux, spawnedAt } = await startInPane(asLaunched(program, []), [], cwd, PANE);
  try {
    const seenAt = await waitForScreen(tmux, readyPattern(program, program.welcome), 30_000, 10);
    const ms = seenAt - await spawnedAt();
    await sleep(1000);
    const rss = await rssKiB(await programPid(await tmux.panePid()));
    return { ms, rss };
  } finally {
    await tmux.close();
  }
}

// --- report --------------------------------------------------------------------

/**
 * Runs `runs` rounds over the programs, interleaved so load changes hit all
 * alike; each row gets the median of one result key. A program that fails
 * once is reported n/a with the reason, not with the runs that worked.
 */
async function measure(
  programs: Program[],
  runs: number,
  rows: Record<string, Row>,
  task: (program: Program) => Promise<Record<string, number>>,
): Promise<void> {
  const samples = new Map<string, Record<string, number>[]>();
  const failures = new Map<string, string>();
  for (let round = 0; round < runs; round++) {
    for (const program of programs) {
      if (failures.has(program.name)) continue;
      try {
        const result = await task(program);
        samples.set(program.name, [...(samples.get(program.name) ?? []), result]);
      } catch (error) {
        failures.set(program.name, errorText(error));
      }
    }
  }
  for (const program of programs) {
    const failure = failures.get(program.name);
    for (const [key, row] of Object.entries(rows)) {
      const values = (samples.get(program.name) ?? []).map((result) => result[key]!);
      const cell: Cell = failure === undefined ? { value: median(values) } : { na: failure };
      row.cells.set(program.name, cell);
    }
  }
}

function format(cell: Cell | undefined, unit: Row["unit"]): string {
  if (cell === undefined) return "";
  if ("na" in cell) return `n/a (${cell.na})`;
  return `${cell.value.toFixed(unit === "ms" && cell.value < 100 ? 1 : 0)} ${unit}`;
}

function ratio(pi: Cell | undefined, ours: Cell | undefined): string {
  if (!pi || !ours || "na" in pi || "na" in ours || ours.value === 0) return "";
  return `${(pi.value / ours.value).toFixed(2)}×`;
}

function printTable(rows: Row[], columns: (Program | Unavailable)[]): void {
  const [ours, ...peers] = columns;
  const header = ["measure", ours!.name, ...peers.flatMap((p) => [p.name, `${p.name}/panto`])];
  const lines = rows.map((row) => {
    const base = row.cells.get(ours!.name);
    return [
      row.what,
      format(base, row.unit),
      ...peers.flatMap((peer) =>
        "reason" in peer
          ? [`n/a (${peer.reason})`, ""]
          : [format(row.cells.get(peer.name), row.unit), ratio(row.cells.get(peer.name), base)]
      ),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const l of lines) console.log(line(l));
}

function newRow(what: string, unit: Row["unit"]): Row {
  return { what, unit, cells: new Map() };
}

async function main(): Promise<void> {
  await withPrograms("panto-cli-bench-", PI_NODE_PREFIX, async (site) => {
    const { cwd, server, programs, columns, piVersion } = site;
    console.log(
      `Deno ${Deno.version.deno}, pi ${piVersion}; ${Deno.build.os} ${Deno.osRelease()}, ` +
        `${navigator.hardwareConcurrency} cores, load average ${await loadAverage()}`,
    );

    // Warm-up: fills Deno's module and code caches, so no run pays for a first compile.
    for (const program of programs) await measureVersion(program, cwd).catch(() => {});

    const version = newRow(`--version, spawn to exit (median of ${VERSION_RUNS})`, "ms");
    await measure(programs, VERSION_RUNS, { ms: version }, async (p) => ({
      ms: await measureVersion(p, cwd),
    }));

    const start = newRow(`interactive start to welcome + prompt (median of ${UI_RUNS})`, "ms");
    const rss = newRow("RSS at idle, 1 s after start", "MiB");
    const print = newRow(`-p one-line prompt, spawn to exit (median of ${PRINT_RUNS})`, "ms");
    const printRss = newRow("-p peak RSS", "MiB");
    const resume = newRow(`resume ${HISTORY_MESSAGES}-message session to ready`, "ms");
    const cpu = newRow(`CPU while a ${ANSWER_LINES}-line answer streams`, "ms");
    const bytes = newRow("bytes written to the terminal meanwhile", "KiB");
    const wall = newRow("Enter to last line on screen", "ms");
    const rows = [version, start, rss, print, printRss, resume, cpu, bytes, wall];
    const screenSkipped = QUICK ? "skipped: BENCH_CLI_QUICK" : !tmuxAvailable && "tmux not found";
    if (!gnuTimeAvailable) {
      for (const p of programs) printRss.cells.set(p.name, { na: `${GNU_TIME} not found` });
    }
    if (screenSkipped) {
      for (const row of [start, rss, resume, cpu, bytes, wall]) {
        for (const p of programs) row.cells.set(p.name, { na: screenSkipped });
      }
    } else {
      await measure(programs, UI_RUNS, { ms: start, rss }, async (p) => {
        const result = await measureStart(p, cwd);
        return { ms: result.ms, rss: result.rss / 1024 };
      });
    }
    await measure(
      programs,
      PRINT_RUNS,
      gnuTimeAvailable ? { ms: print, peakMiB: printRss } : { ms: print },
      (p) => measurePrint(p, cwd, server),
    );
    if (!screenSkipped) {
      const reply = answerStream([{ type: "text", text: longAnswer(ANSWER_LINES) }], DELTA_CHARS);
      const plan = { reply, deltaMs: DELTA_MS, historyMessages: HISTORY_MESSAGES, pane: PANE };
      await measure(
        programs,
        STREAM_RUNS,
        { resumeMs: resume, cpuMs: cpu, bytes, wallMs: wall },
        async (p) => {
          const { resumeMs, cpuMs, bytes, wallMs } = await measureStream(
            asLaunched(p, []),
            cwd,
            server,
            plan,
          );
          return { resumeMs, cpuMs, bytes: bytes / 1024, wallMs };
        },
      );
    }
    console.log(
      `streaming: ${DELTA_CHARS}-character deltas every ${DELTA_MS} ms after resuming ` +
        `${HISTORY_MESSAGES} messages; ${PANE.cols}×${PANE.rows} tmux pane; CPU includes children; ` +
        `load average now ${await loadAverage()}`,
    );
    printTable(rows, columns);
  });
}

await main();
