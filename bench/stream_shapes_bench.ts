/**
 * The whole program beside pi on Node (as `npm install` runs it) while long
 * answers of several shapes stream into a resumed conversation, in the same
 * run, through the machinery of `cli_bench.ts` (`cli_harness.ts`): both
 * programs in a 120×40 tmux pane against one fake LLM server, each with a
 * private HOME. Shapes: one fenced TypeScript block of 1,000 lines, one
 * paragraph of about 1,000 wrapped lines, one paragraph of 1,000 lines each
 * ending with a newline, 500 short paragraphs with inline
 * styles, a 1,000-item list, a table of 300 rows × 8 columns wider than the
 * pane, and a 1,000-line thinking block followed by a short answer. Two
 * scenarios: `bench` resumes 300 earlier messages and streams 20-character
 * deltas every 2 ms; `issue` (the scenario of issue 24) resumes the same
 * session whose last answer is 1,500 lines long and streams 12-character
 * deltas every 1 ms.
 *
 * Per scenario, shape and program: CPU of the process tree (/proc
 * utime+stime, children included) and bytes written to the pty (tmux
 * pipe-pane), from Enter until the pane has been quiet 0.5 s, with the ratio
 * panto/pi beside the targets (CPU ≤ 0.33×, bytes ≤ 0.2×); resident memory
 * 1 s later (target ≤ 0.5× pi's); and, in the pane's whole history
 * afterwards (scrollback and screen), the lines of the answer found on more
 * than one row (dup) or on none (missing). Every line of every answer carries
 * its own `Q<5 digits>` token, so an answer line on two rows was repainted
 * into the scrollback, and one on no row was wiped from it. Ten keystrokes
 * typed while each answer streams are timed from send-keys until the editor
 * shows them (wall time, capture-pane polled back to back). Last, resident
 * memory after resuming a session of 10,000 messages.
 *
 * Run: `deno run -A bench/stream_shapes_bench.ts`. Knobs (environment):
 * `BENCH_SHAPES_RUNS` (1; medians over runs, duplicates the most of any run),
 * `BENCH_SHAPES` (comma-separated shape names, all by default),
 * `BENCH_SHAPES_SCENARIOS` (`bench,issue` by default),
 * `BENCH_SHAPES_HISTORY` (earlier messages, 300), `BENCH_SHAPES_LINES` (1000),
 * `BENCH_SHAPES_TABLE_ROWS` (300), `BENCH_SHAPES_LONG_SESSION` (10000; 0
 * skips it), `BENCH_QUICK=1` (sizes ÷5: a smoke run),
 * `BENCH_SHAPES_DUMP=DIR` (writes each pane's final history there),
 * `BENCH_PI_NODE_PREFIX` (where pi is npm-installed; else `pi` on PATH),
 * `BENCH_SHAPES_PI_DENO=1` (adds pi run by Deno).
 *
 * @module
 */
import { join } from "node:path";
import type { FakeLlmServer } from "../tests/support/fake_llm_server.ts";
import { tmuxAvailable, type TmuxSession } from "../tests/support/tmux.ts";
import {
  ANSWER_END,
  type AnswerBlock,
  answerStream,
  asLaunched,
  errorText,
  knob,
  loadAverage,
  measureStream,
  median,
  nowEpochMs,
  type PaneSize,
  type Program,
  sleep,
  type StreamPlan,
  waitForScreen,
  withPrograms,
} from "./cli_harness.ts";

const QUICK = Deno.env.get("BENCH_QUICK") === "1";
const scale = (n: number) => QUICK ? Math.max(2, Math.round(n / 5)) : n;
const RUNS = knob("BENCH_SHAPES_RUNS", 1);
const HISTORY_MESSAGES = knob("BENCH_SHAPES_HISTORY", scale(300), 2);
/** Messages of the long session whose resident memory is measured (0: not measured). */
const LONG_SESSION = knob("BENCH_SHAPES_LONG_SESSION", scale(10_000), 0);
const LINES = knob("BENCH_SHAPES_LINES", scale(1000), 10);
const TABLE_ROWS = knob("BENCH_SHAPES_TABLE_ROWS", scale(300), 2);
const PI_NODE_PREFIX = Deno.env.get("BENCH_PI_NODE_PREFIX");
const WITH_PI_DENO = Deno.env.get("BENCH_SHAPES_PI_DENO") === "1";
const DUMP_DIR = Deno.env.get("BENCH_SHAPES_DUMP");
const PANE: PaneSize = { cols: 120, rows: 40 };
/** The targets of the whole-program figure: ours at most this fraction of pi's. */
const TARGET = { cpu: 0.33, bytes: 0.2, rss: 0.5 };

// --- shapes ----------------------------------------------------------------------

/** How the answers are streamed, and into what. */
interface Scenario {
  name: string;
  what: string;
  deltaChars: number;
  deltaMs: number;
  /** The resumed session's last answer, when not the usual short one. */
  lastAnswer?: string;
}

const EARLIER_ANSWER_LINES = scale(1500);

/**
 * A long earlier answer of mixed Markdown, about `lines` rows: sections of a
 * heading, a paragraph, a list and a code block. No `Q` tokens, so it never
 * counts in the history check.
 */
function earlierAnswer(lines: number): string {
  const section = (n: number) => [
    `## Part ${n}`,
    "",
    `Part ${n} rebuilds the **index** of module ${n} and checks \`out/${n}.js\` twice.`,
    "",
    ...Array.from({ length: 4 }, (_, i) => `- item ${i} of part ${n}: keep the cache warm`),
    "",
    "```ts",
    ...Array.from({ length: 6 }, (_, i) => `const step${i} = build(${n}, ${i}); // part ${n}`),
    "```",
    "",
  ];
  const sections = Math.ceil(lines / section(0).length);
  return Array.from({ length: sections }, (_, n) => section(n).join("\n")).join("\n");
}

function scenarios(): Scenario[] {
  const all: Scenario[] = [
    { name: "bench", what: "20-character deltas every 2 ms", deltaChars: 20, deltaMs: 2 },
    {
      name: "issue",
      what: `12-character deltas every 1 ms, after a ${EARLIER_ANSWER_LINES}-line answer`,
      deltaChars: 12,
      deltaMs: 1,
      lastAnswer: earlierAnswer(EARLIER_ANSWER_LINES),
    },
  ];
  return pick(all, "BENCH_SHAPES_SCENARIOS", "scenarios");
}

/** A token unique to one line of an answer. */
const token = (n: number) => `Q${String(n).padStart(5, "0")}`;
const TOKENS = /\bQ\d{5}\b/g;

function codeBlock(lines: number): string {
  const templates = [
    (t: string, n: number) => `// ${t}: step ${n} normalises the input before counting`,
    (t: string) => `export function ${t}(input: string, factor = 2): number {`,
    (t: string, n: number) => `  const ${t} = input.trim().split(/\\s+/).length * ${n};`,
    (t: string, n: number) => `  if (${t} > ${n}) return Math.max(${t}, factor); // ${t} is large`,
    (t: string) => `  return input.length + "${t}".length; }`,
  ];
  const body = Array.from(
    { length: lines },
    (_, i) => templates[i % templates.length]!(token(i), i),
  );
  return ["```ts", ...body, "```"].join("\n");
}

/** One paragraph about `lines` rows long once wrapped at the pane's width. */
function paragraph(lines: number): string {
  const sentences: string[] = [];
  let chars = 0;
  for (let n = 0; chars < lines * (PANE.cols - 10); n++) {
    const sentence = `${
      token(n)
    } says that step ${n} keeps the cache warm and the cut near the tail.`;
    sentences.push(sentence);
    chars += sentence.length + 1;
  }
  return sentences.join(" ");
}

/** One paragraph of `lines` source lines, each ending with a newline (soft breaks), as in issue 24. */
function paragraphLines(lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `${token(i)} says that step ${i} keeps the cache warm and the cut near the tail`,
  ).join("\n");
}

function shortParagraphs(lines: number): string {
  const styles = [
    (t: string, n: number) => `Paragraph ${t} sets **flag ${n}** before the build runs.`,
    (t: string, n: number) => `Then ${t} calls \`build(${n})\` and _waits_ for the result.`,
    (t: string, n: number) =>
      `See [the guide ${n}](https://example.com/guide/${n}) about ${t}, it is **short**.`,
    (t: string, n: number) => `${t}: _italic_, **bold**, \`code\` and plain text ${n}.`,
  ];
  const count = Math.ceil(lines / 2);
  return Array.from({ length: count }, (_, i) => styles[i % styles.length]!(token(i), i))
    .join("\n\n");
}

function list(items: number): string {
  return Array.from(
    { length: items },
    (_, i) => `- ${token(i)}: item ${i} with \`code ${i}\` and **bold** text`,
  ).join("\n");
}

function wideTable(rows: number): string {
  const header = "| id | service | state | memory | owner | updated | region | note |";
  const rule = "|---|---|---|---:|---|---|---|---|";
  const row = (i: number) =>
    `| ${token(i)} | service-${i} | ${i % 3 ? "running" : "stopped"} | ${
      (i * 1.5).toFixed(1)
    } MiB` +
    ` | owner-${i % 17} | 2026-11-${String(1 + (i % 28)).padStart(2, "0")} | eu-west-${i % 3}` +
    ` | restarted ${i % 5} times after the nightly deploy |`;
  return [header, rule, ...Array.from({ length: rows }, (_, i) => row(i))].join("\n");
}

function thinkingLines(lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `${token(i)}: consider whether step ${i} needs the cache; it probably does.`,
  ).join("\n");
}

/** One answer to stream, and what it is. */
interface Shape {
  name: string;
  what: string;
  blocks: AnswerBlock[];
}

const withEnd = (markdown: string) => `${markdown}\n\n${ANSWER_END}`;

function shapes(): Shape[] {
  const text = (markdown: string): AnswerBlock[] => [{ type: "text", text: withEnd(markdown) }];
  return [
    { name: "code", what: `${LINES}-line fenced TypeScript block`, blocks: text(codeBlock(LINES)) },
    { name: "paragraph", what: `one ~${LINES}-row paragraph`, blocks: text(paragraph(LINES)) },
    {
      name: "paragraph_lines",
      what: `one paragraph of ${LINES} lines, each ending with a newline`,
      blocks: text(paragraphLines(LINES)),
    },
    {
      name: "short_paragraphs",
      what: `${Math.ceil(LINES / 2)} short paragraphs, inline styles`,
      blocks: text(shortParagraphs(LINES)),
    },
    { name: "list", what: `${LINES}-item list`, blocks: text(list(LINES)) },
    {
      name: "table",
      what: `${TABLE_ROWS} rows × 8 columns, wider than the pane`,
      blocks: text(wideTable(TABLE_ROWS)),
    },
    {
      name: "thinking",
      what: `${LINES}-line thinking block, then a line`,
      blocks: [
        { type: "thinking", text: thinkingLines(LINES) },
        { type: "text", text: withEnd("Done thinking.") },
      ],
    },
  ];
}

/** The items of `all` named in the comma-separated variable `name` (all when unset). */
function pick<T extends { name: string }>(all: T[], name: string, what: string): T[] {
  const wanted = Deno.env.get(name)?.split(",").map((s) => s.trim()).filter(Boolean);
  if (!wanted) return all;
  const unknown = wanted.filter((w) => !all.some((item) => item.name === w));
  if (unknown.length > 0) {
    throw new Error(
      `${name} names unknown ${what} ${JSON.stringify(unknown)}; known: ${
        all.map((item) => item.name).join(", ")
      }`,
    );
  }
  return all.filter((item) => wanted.includes(item.name));
}

// --- measuring -------------------------------------------------------------------

/**
 * Answer lines shown more than once in the pane's history: tokens found on
 * more than one row. The model printed each once, so a second row is a copy
 * (or a stale version, e.g. a table row before its columns widened) left in
 * the scrollback by a repaint.
 */
function tokenRows(lines: readonly string[]): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of lines) {
    for (const found of new Set(line.match(TOKENS))) rows.set(found, (rows.get(found) ?? 0) + 1);
  }
  return rows;
}

/** Duplicated answer lines, and answer lines missing from the history (scrollback wiped). */
function historyCheck(shape: Shape, history: readonly string[]) {
  const rows = tokenRows(history);
  const expected = tokenRows(shape.blocks.map((block) => block.text));
  return {
    duplicates: [...rows.values()].filter((count) => count > 1).length,
    missing: [...expected.keys()].filter((found) => !rows.has(found)).length,
  };
}

const PROBE_KEYS = "keystrokes";

/**
 * Types {@linkcode PROBE_KEYS} one key at a time once `startToken` is on
 * screen (a quarter through the answer), timing each from send-keys until the
 * editor row (the row below a rule) shows it; empty when the answer had
 * finished by the last key.
 */
function keystrokeEcho(startToken: string): (tmux: TmuxSession) => Promise<number[]> {
  return async (tmux) => {
    await waitForScreen(tmux, new RegExp(startToken), 120_000, 20);
    const latencies: number[] = [];
    for (let typed = 1; typed <= PROBE_KEYS.length; typed++) {
      const expected = PROBE_KEYS.slice(0, typed);
      const sentAt = nowEpochMs();
      await tmux.type(expected.at(-1)!);
      for (;;) {
        const seenAt = nowEpochMs();
        const screen = await tmux.screen();
        const echoed = screen.some((line, i) =>
          /^─{20,}$/.test(line) && screen[i + 1]?.trim() === expected
        );
        if (echoed) {
          latencies.push(seenAt - sentAt);
          break;
        }
        if (nowEpochMs() - sentAt > 10_000) throw new Error(`keystroke ${typed} never echoed`);
      }
      await sleep(100);
    }
    const finished = (await tmux.screen()).some((line) => line.includes(ANSWER_END));
    return finished ? [] : latencies;
  };
}

/** The token a quarter of the way through a shape's answer lines. */
function quarterToken(shape: Shape): string {
  const tokens = [...tokenRows(shape.blocks.map((block) => block.text)).keys()];
  return tokens[Math.floor(tokens.length / 4)]!;
}

/** One program's figures for one shape: medians over runs, duplicates at their worst. */
type Cell = Figures | { na: string };

interface Figures {
  cpuMs: number;
  kib: number;
  /** Resident memory 1 s after the answer, MiB. */
  rssMiB: number;
  duplicates: number;
  missing: number;
  /** Keystroke echo times of every run. */
  keysMs: number[];
}

async function measureShape(
  scenario: Scenario,
  shape: Shape,
  programs: Program[],
  cwd: string,
  server: FakeLlmServer,
): Promise<Map<string, Cell>> {
  const plan: StreamPlan = {
    reply: answerStream(shape.blocks, scenario.deltaChars),
    deltaMs: scenario.deltaMs,
    historyMessages: HISTORY_MESSAGES,
    ...(scenario.lastAnswer === undefined ? {} : { lastAnswer: scenario.lastAnswer }),
    pane: PANE,
    probe: keystrokeEcho(quarterToken(shape)),
  };
  const samples = new Map<string, Figures[]>();
  const failures = new Map<string, string>();
  // Interleaved, so a change of load hits every program alike.
  for (let round = 0; round < RUNS; round++) {
    for (const program of programs) {
      if (failures.has(program.name)) continue;
      try {
        const result = await measureStream(asLaunched(program, []), cwd, server, plan);
        if (DUMP_DIR) {
          const file = `${scenario.name}-${shape.name}-${program.name.replace(/\W+/g, "_")}-${
            round + 1
          }.txt`;
          await Deno.writeTextFile(join(DUMP_DIR, file), result.history.join("\n"));
        }
        const sample = {
          cpuMs: result.cpuMs,
          kib: result.bytes / 1024,
          rssMiB: result.idleRssKiB / 1024,
          ...historyCheck(shape, result.history),
          keysMs: result.probed,
        };
        samples.set(program.name, [...samples.get(program.name) ?? [], sample]);
      } catch (error) {
        failures.set(program.name, errorText(error));
      }
    }
  }
  const cells = new Map<string, Cell>();
  for (const program of programs) {
    const failure = failures.get(program.name);
    const runs = samples.get(program.name) ?? [];
    cells.set(
      program.name,
      failure !== undefined ? { na: failure } : {
        cpuMs: median(runs.map((r) => r.cpuMs)),
        kib: median(runs.map((r) => r.kib)),
        rssMiB: median(runs.map((r) => r.rssMiB)),
        duplicates: Math.max(...runs.map((r) => r.duplicates)),
        missing: Math.max(...runs.map((r) => r.missing)),
        keysMs: runs.flatMap((r) => r.keysMs),
      },
    );
  }
  return cells;
}

// --- report ----------------------------------------------------------------------

function ratioCell(ours: number, theirs: number, target: number): string {
  const ratio = ours / theirs;
  return `${ratio.toFixed(2)}× ${ratio <= target ? "ok" : "over"}`;
}

type Results = { shape: Shape; cells: Map<string, Cell> }[];

/** The figures of one shape and program, or why there are none. */
function figureCells(cell: Cell | undefined, columns: (f: Figures) => string[]): string[] {
  const blank = columns({ cpuMs: 0, kib: 0, rssMiB: 0, duplicates: 0, missing: 0, keysMs: [] });
  if (cell === undefined || "na" in cell) {
    return [`n/a (${cell?.na ?? "not run"})`, ...blank.slice(1).map(() => "")];
  }
  return columns(cell);
}

/**
 * One row per shape: each program's figures, then each peer's ratio to ours
 * for every figure that has a target.
 */
function printTable(
  results: Results,
  programs: Program[],
  measures: {
    title: string;
    show: (f: Figures) => string;
    ratio?: (f: Figures) => number;
    target?: number;
  }[],
): void {
  const [ours, ...peers] = programs;
  const targeted = measures.filter((m) => m.ratio && m.target !== undefined);
  const header = [
    "shape",
    ...programs.flatMap((p) => measures.map((m) => `${p.name} ${m.title}`)),
    ...peers.flatMap((p) => targeted.map((m) => `${m.title} ÷ ${p.name} (≤${m.target})`)),
  ];
  const lines = results.map(({ shape, cells }) => {
    const base = cells.get(ours!.name);
    return [
      shape.name,
      ...programs.flatMap((p) =>
        figureCells(cells.get(p.name), (f) => measures.map((m) => m.show(f)))
      ),
      ...peers.flatMap((peer) => {
        const theirs = cells.get(peer.name);
        return targeted.map((m) =>
          base && theirs && !("na" in base) && !("na" in theirs)
            ? ratioCell(m.ratio!(base), m.ratio!(theirs), m.target!)
            : ""
        );
      }),
    ];
  });
  printMarkdownTable(header, lines);
}

function printMarkdownTable(header: string[], lines: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const l of lines) console.log(line(l));
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const keys = (f: Figures, pick: (keys: number[]) => number) =>
  f.keysMs.length === 0 ? "n/a" : ms(pick(f.keysMs));

/** The three tables of one scenario: CPU and bytes, memory, keystroke echo. */
function printScenario(results: Results, programs: Program[]): void {
  printTable(results, programs, [
    { title: "CPU", show: (f) => ms(f.cpuMs), ratio: (f) => f.cpuMs, target: TARGET.cpu },
    {
      title: "bytes",
      show: (f) => `${f.kib.toFixed(0)} KiB`,
      ratio: (f) => f.kib,
      target: TARGET.bytes,
    },
    { title: "dup/missing", show: (f) => `${f.duplicates}/${f.missing}` },
  ]);
  console.log("\nresident memory 1 s after the answer (whole process tree):");
  printTable(results, programs, [
    {
      title: "RSS",
      show: (f) => `${f.rssMiB.toFixed(0)} MiB`,
      ratio: (f) => f.rssMiB,
      target: TARGET.rss,
    },
  ]);
  console.log(
    `\nkeystroke to echo on screen while the answer streams (wall time; ${PROBE_KEYS.length} keys ` +
      "a run, n/a when the answer ended first):",
  );
  printTable(results, programs, [
    { title: "echo median", show: (f) => keys(f, median) },
    { title: "echo max", show: (f) => keys(f, (k) => Math.max(...k)) },
  ]);
}

/**
 * Resident memory with a long session resumed: a session of
 * {@linkcode LONG_SESSION} messages, then a one-line answer, measured 1 s
 * after it (the whole history is in the terminal's scrollback by then,
 * which is where scrolling it happens).
 */
async function printLongSession(
  programs: Program[],
  cwd: string,
  server: FakeLlmServer,
): Promise<void> {
  const plan: StreamPlan = {
    reply: answerStream([{ type: "text", text: `Done.\n\n${ANSWER_END}` }], 20),
    deltaMs: 1,
    historyMessages: LONG_SESSION,
    pane: PANE,
  };
  const rows: string[][] = [];
  for (const program of programs) {
    try {
      const result = await measureStream(asLaunched(program, []), cwd, server, plan);
      rows.push([
        program.name,
        ms(result.resumeMs),
        `${(result.idleRssKiB / 1024).toFixed(0)} MiB`,
      ]);
    } catch (error) {
      rows.push([program.name, `n/a (${errorText(error)})`, ""]);
    }
  }
  console.log(`\na resumed session of ${LONG_SESSION} messages, then a one-line answer:`);
  printMarkdownTable(["program", "resume to ready", "RSS 1 s after the answer"], rows);
}

async function commit(): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["rev-parse", "--short", "HEAD"],
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  return out?.success ? new TextDecoder().decode(out.stdout).trim() : "unknown";
}

async function main(): Promise<void> {
  if (!tmuxAvailable) {
    console.log(
      "stream_shapes_bench: tmux not found, nothing measured (it runs both programs in tmux)",
    );
    return;
  }
  const selected = pick(shapes(), "BENCH_SHAPES", "shapes");
  await withPrograms("panto-shapes-bench-", PI_NODE_PREFIX, async (site) => {
    const { cwd, server, programs, columns, piVersion } = site;
    const node = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output()
      .then((out) => new TextDecoder().decode(out.stdout).trim(), () => "none");
    console.log(
      `${new Date().toISOString()}, commit ${await commit()}; Deno ${Deno.version.deno}, ` +
        `pi ${piVersion}, node ${node}; ${navigator.hardwareConcurrency} cores, ` +
        `load average ${await loadAverage()}${QUICK ? "; QUICK sizes" : ""}`,
    );
    for (const column of columns) {
      if ("reason" in column) console.log(`${column.name}: not run (${column.reason})`);
    }
    for (const scenario of scenarios()) {
      const results: Results = [];
      for (const shape of selected) {
        const cells = await measureShape(scenario, shape, programs, cwd, server);
        results.push({ shape, cells });
        console.log(
          `  ${scenario.name}/${shape.name}: ${shape.what}; load average ${await loadAverage()}`,
        );
      }
      console.log(
        `\nscenario ${scenario.name}: ${PANE.cols}×${PANE.rows} tmux pane; resumed session of ` +
          `${HISTORY_MESSAGES} messages; ${scenario.what}; CPU of the process tree and ` +
          `bytes to the pty from Enter until 0.5 s quiet (median of ${RUNS}); dup = answer ` +
          `lines on more than one row of the whole tmux history afterwards, missing = answer ` +
          `lines not in it (worst run); ratio = panto ÷ peer`,
      );
      printScenario(results, programs);
    }
    if (LONG_SESSION > 0) await printLongSession(programs, cwd, server);
  }, WITH_PI_DENO);
}

await main();
