/**
 * panto beside pi (`@mariozechner/pi-coding-agent`, the version pinned in the
 * root deno.json) as whole programs, in the same run, against the same fake
 * LLM server (`tests/support/fake_llm_server.ts`, Anthropic Messages protocol
 * on loopback):
 *
 * 1. `--version`: process spawn to exit (median);
 * 2. interactive start: spawn in a tmux pane until a captured screen shows the
 *    welcome and the prompt with its footer (median; screen polled every 10 ms);
 * 3. memory: VmRSS of the program (and any children) at idle, 1 s after that;
 * 4. `-p "…"`: spawn to exit of a one-line prompt the fake server answers;
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
 * Run: `deno run -A bench/cli_bench.ts`. Knobs (environment):
 * `BENCH_CLI_RUNS` (`--version` runs, 10), `BENCH_CLI_UI_RUNS` (5),
 * `BENCH_CLI_PRINT_RUNS` (5), `BENCH_CLI_STREAM_RUNS` (3),
 * `BENCH_CLI_HISTORY` (earlier messages, 300), `BENCH_CLI_ANSWER_LINES` (1000),
 * `BENCH_CLI_DELTA_CHARS` (20), `BENCH_CLI_DELTA_MS` (2),
 * `BENCH_PI_NODE_PREFIX` (see above).
 *
 * @module
 */
import { join } from "node:path";
import { FileSystemJSONLStore, type PersistentMessage } from "@panto/lib";
import { FakeLlmServer } from "../tests/support/fake_llm_server.ts";
import { piAssistantMessage } from "./pi_messages.ts";
import { shellQuote, tmuxAvailable, TmuxSession } from "../tests/support/tmux.ts";

function knob(name: string, fallback: number, min = 1): number {
  const raw = Deno.env.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

const VERSION_RUNS = knob("BENCH_CLI_RUNS", 10);
const UI_RUNS = knob("BENCH_CLI_UI_RUNS", 5);
const PRINT_RUNS = knob("BENCH_CLI_PRINT_RUNS", 5);
const STREAM_RUNS = knob("BENCH_CLI_STREAM_RUNS", 3);
const HISTORY_MESSAGES = knob("BENCH_CLI_HISTORY", 300, 2);
const ANSWER_LINES = knob("BENCH_CLI_ANSWER_LINES", 1000, 2);
const DELTA_CHARS = knob("BENCH_CLI_DELTA_CHARS", 20);
const DELTA_MS = knob("BENCH_CLI_DELTA_MS", 2, 0);
const PI_NODE_PREFIX = Deno.env.get("BENCH_PI_NODE_PREFIX");

const REPO = new URL("..", import.meta.url).pathname;
const COLS = 100;
const ROWS = 40;
const HISTORY_END = "HISTORY-END";
const ANSWER_END = "ANSWER-END";
const decoder = new TextDecoder();

/** One program under test. */
interface Program {
  /** Column title. */
  name: string;
  /** The command line that starts it, before its own arguments. */
  argv: string[];
  /** Overrides of the inherited environment (a private HOME and config). */
  env: Record<string, string>;
  /** Matches the screen once the welcome is painted (before the footer). */
  welcome: RegExp;
  /** The model name its footer ends with once the prompt is ready. */
  footerModel: string;
  /** Saves a new copy of the long conversation; returns the arguments that resume it. */
  freshHistory: () => Promise<string[]>;
}

/** A column that could not be run, and why. */
interface Unavailable {
  name: string;
  reason: string;
}

type Cell = { value: number } | { na: string };

interface Row {
  what: string;
  unit: "ms" | "MiB" | "KiB";
  cells: Map<string, Cell>;
}

// --- environment -------------------------------------------------------------

async function run(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${decoder.decode(out.stderr).trim()}`);
  }
  return decoder.decode(out.stdout).trim();
}

/** Deno's cache: every program gets a private HOME, which would otherwise move it. */
async function denoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  return JSON.parse(await run(Deno.execPath(), ["info", "--json"])).denoDir;
}

/** The pinned `npm:@mariozechner/pi-coding-agent@x.y.z` specifier. */
async function piSpecifier(): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const spec: unknown = config.imports?.["@mariozechner/pi-coding-agent"];
  if (typeof spec !== "string" || !/^npm:@mariozechner\/pi-coding-agent@\d/.test(spec)) {
    throw new Error(
      `deno.json imports must pin "@mariozechner/pi-coding-agent" to npm:…@x.y.z, got ${
        JSON.stringify(spec)
      }`,
    );
  }
  return spec;
}

/** Other work on the machine skews every figure: the report says how busy it was. */
async function loadAverage(): Promise<string> {
  return await Deno.readTextFile("/proc/loadavg").then(
    (text) => text.split(" ").slice(0, 3).join(" "),
    () => "unknown",
  );
}

const CLOCK_TICKS = await run("getconf", ["CLK_TCK"]).then(Number, () => 100);

// --- programs ----------------------------------------------------------------

const TERMINAL_ENV = { TERM: "xterm-256color", COLORTERM: "truecolor" };

async function preparePanto(
  root: string,
  cwd: string,
  server: FakeLlmServer,
  denoCache: string,
): Promise<Program> {
  const home = join(root, "panto-home");
  const pantoHome = join(home, ".panto");
  await Deno.mkdir(pantoHome, { recursive: true });
  await Deno.writeTextFile(
    join(pantoHome, "config.json"),
    JSON.stringify({
      defaultModel: "fake",
      providers: { fake: { api: "anthropic-messages", baseUrl: server.anthropicBaseUrl } },
      models: { fake: { provider: "fake", model: "fake-model" } },
    }),
  );
  return {
    name: "panto",
    argv: [Deno.execPath(), "run", "-q", "-A", join(REPO, "cli/main.ts")],
    env: { ...TERMINAL_ENV, HOME: home, PANTO_HOME: pantoHome, DENO_DIR: denoCache },
    welcome: /panto \d+\.\d+\.\d+/,
    footerModel: "fake",
    freshHistory:
      async () => ["-r", await writePantoHistory(join(pantoHome, "sessions"), cwd, server)],
  };
}

async function preparePi(
  name: string,
  argv: string[],
  root: string,
  cwd: string,
  server: FakeLlmServer,
  denoCache: string,
): Promise<Program> {
  const home = await Deno.makeTempDir({ dir: root, prefix: "pi-home-" });
  const agentDir = join(home, ".pi", "agent");
  await Deno.mkdir(agentDir, { recursive: true });
  await Deno.writeTextFile(
    join(agentDir, "models.json"),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl: server.anthropicBaseUrl,
          api: "anthropic-messages",
          apiKey: "fake-key-for-the-loopback-server",
          models: [{ id: "fake-model" }],
        },
      },
    }),
  );
  await Deno.writeTextFile(
    join(agentDir, "settings.json"),
    JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model" }),
  );
  return {
    name,
    argv,
    env: { ...TERMINAL_ENV, HOME: home, DENO_DIR: denoCache, PI_OFFLINE: "1" },
    welcome: /pi v\d+\.\d+\.\d+/,
    footerModel: "fake-model",
    freshHistory: async () => ["--session", await writePiHistory(join(home, "history"), cwd)],
  };
}

/** pi run by node from an `npm install --prefix` directory, or why it cannot be. */
async function piNodeArgv(version: string): Promise<string[] | string> {
  if (!PI_NODE_PREFIX) {
    return `set BENCH_PI_NODE_PREFIX=DIR after npm install --prefix DIR @mariozechner/pi-coding-agent@${version}`;
  }
  const packageDir = join(PI_NODE_PREFIX, "node_modules/@mariozechner/pi-coding-agent");
  const installed = await Deno.readTextFile(join(packageDir, "package.json")).then(
    (text) => JSON.parse(text).version as string,
    () => undefined,
  );
  if (installed !== version) {
    return `${packageDir} holds ${installed ?? "nothing"}, not ${version}`;
  }
  const nodeVersion = await run("node", ["--version"]).catch(() => undefined);
  if (nodeVersion === undefined) return "node is not on PATH";
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, "").split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 6)) {
    return `node ${nodeVersion} is older than pi's engines (>=20.6.0)`;
  }
  return ["node", join(packageDir, "dist/cli.js")];
}

// --- conversations -------------------------------------------------------------

function historyQuestion(n: number): string {
  return `Question ${n}: how does step ${n} of the build work?`;
}

function historyAnswer(n: number, last: boolean): string {
  return [
    `Step ${n} compiles the **module graph** and writes \`out/${n}.js\`.`,
    "",
    `- it reads the config of package ${n}`,
    "- it resolves the imports",
    "",
    "```ts",
    `const result${n} = await build({ entry: "src/${n}.ts" });`,
    `console.log(result${n}.files.length);`,
    "```",
    "",
    last ? HISTORY_END : `That is all for step ${n}.`,
  ].join("\n");
}

const WIRE = {
  apiStyle: "anthropic-messages",
  model: "fake-model",
  reasoning: "off",
} as const;
const HISTORY_USAGE = {
  inputTokens: 900,
  outputTokens: 120,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

async function writePantoHistory(
  dir: string,
  cwd: string,
  server: FakeLlmServer,
): Promise<string> {
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create({ cwd });
    const messages: PersistentMessage[] = [];
    for (let i = 0; i < HISTORY_MESSAGES; i += 2) {
      const timestamp = new Date().toISOString();
      const text = historyAnswer(i / 2, i + 2 >= HISTORY_MESSAGES);
      messages.push(
        {
          message: {
            role: "user",
            content: [{ type: "text", text: historyQuestion(i / 2) }],
            timestamp,
          },
          conversation: [],
          toolsAvailable: [],
        },
        {
          message: {
            role: "assistant",
            content: [{ type: "text", text }],
            timestamp,
            stopReason: "end_turn",
            usage: HISTORY_USAGE,
            api: WIRE.apiStyle,
            model: WIRE.model,
          },
          usage: HISTORY_USAGE,
          wire: { ...WIRE, baseUrl: server.anthropicBaseUrl },
          conversation: [],
          toolsAvailable: [],
        },
      );
    }
    await session.append(messages);
    return session.id;
  } finally {
    await store.close();
  }
}

/** A pi session file (format v3, as pi's SessionManager writes it). */
async function writePiHistory(dir: string, cwd: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const id = crypto.randomUUID();
  const timestamp = new Date().toISOString();
  const entries: unknown[] = [{ type: "session", version: 3, id, timestamp, cwd }];
  let parentId: string | null = null;
  const append = (message: unknown) => {
    const entryId = crypto.randomUUID().slice(0, 8);
    entries.push({ type: "message", id: entryId, parentId, timestamp, message });
    parentId = entryId;
  };
  for (let i = 0; i < HISTORY_MESSAGES; i += 2) {
    const content = (text: string) => [{ type: "text", text }];
    append({ role: "user", content: content(historyQuestion(i / 2)), timestamp: Date.now() });
    append(
      piAssistantMessage(historyAnswer(i / 2, i + 2 >= HISTORY_MESSAGES), "fake-model", "fake"),
    );
  }
  const file = join(dir, `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
  await Deno.writeTextFile(file, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return file;
}

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

/** The answer as an Anthropic Messages stream of `deltaChars`-character text deltas. */
function answerStream(text: string, deltaChars: number): string {
  const event = (data: { type: string } & Record<string, unknown>) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const parts = [
    event({
      type: "message_start",
      message: {
        id: "msg_cli_bench",
        type: "message",
        role: "assistant",
        model: "fake-model",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let i = 0; i < text.length; i += deltaChars) {
    const delta = { type: "text_delta", text: text.slice(i, i + deltaChars) };
    parts.push(event({ type: "content_block_delta", index: 0, delta }));
  }
  parts.push(
    event({ type: "content_block_stop", index: 0 }),
    event({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: Math.ceil(text.length / 4) },
    }),
    event({ type: "message_stop" }),
  );
  return parts.join("");
}

// --- /proc -----------------------------------------------------------------------

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  cpuTicks: number;
  comm: string;
}

async function procTable(): Promise<Map<number, ProcStat>> {
  const table = new Map<number, ProcStat>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const text = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    const close = text.lastIndexOf(")");
    if (close < 0) continue;
    // Fields after the parenthesised command: state, ppid, …, utime (14th overall) onward.
    const fields = text.slice(close + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    const comm = text.slice(text.indexOf("(") + 1, close);
    table.set(Number(entry.name), { ppid: Number(fields[1]), cpuTicks: ticks, comm });
  }
  return table;
}

function subtree(table: Map<number, ProcStat>, root: number): number[] {
  const pids = [root];
  for (let i = 0; i < pids.length; i++) {
    for (const [pid, stat] of table) if (stat.ppid === pids[i]) pids.push(pid);
  }
  return pids.filter((pid) => table.has(pid));
}

const WRAPPERS = new Set(["sh", "dash", "bash", "env"]);

/** The program's pid: the first process below the pane's wrapper shells. */
async function programPid(panePid: number): Promise<number> {
  const table = await procTable();
  const pid = subtree(table, panePid).find((p) => !WRAPPERS.has(table.get(p)!.comm));
  if (pid === undefined) throw new Error(`no program process under tmux pane pid ${panePid}`);
  return pid;
}

/** CPU time of a process and its descendants (reaped children included), in ms. */
async function cpuMs(pid: number): Promise<number> {
  const table = await procTable();
  const ticks = subtree(table, pid).reduce((sum, p) => sum + table.get(p)!.cpuTicks, 0);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** VmRSS of a process and its descendants, in KiB. */
async function rssKiB(pid: number): Promise<number> {
  let total = 0;
  for (const p of subtree(await procTable(), pid)) {
    const status = await Deno.readTextFile(`/proc/${p}/status`).catch(() => "");
    total += Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0);
  }
  return total;
}

// --- running -------------------------------------------------------------------

const nowEpochMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs the program to exit; returns the wall time (ms) and its output. */
async function timeRun(
  program: Program,
  args: string[],
  cwd: string,
): Promise<{ ms: number; stdout: string; stderr: string }> {
  const [command, ...prefix] = program.argv;
  const start = performance.now();
  const out = await new Deno.Command(command!, {
    args: [...prefix, ...args],
    cwd,
    env: program.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - start;
  if (!out.success) {
    const stderr = decoder.decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
    throw new Error(`${program.name} ${args.join(" ")} exited ${out.code}: ${stderr}`);
  }
  return { ms, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

async function measureVersion(program: Program, cwd: string): Promise<number> {
  // pi prints it on stderr when stdin is not a terminal (it keeps stdout for print mode).
  const { ms, stdout, stderr } = await timeRun(program, ["--version"], cwd);
  if (!/\d+\.\d+\.\d+/.test(stdout + stderr)) {
    throw new Error(`${program.name} --version printed ${JSON.stringify(stdout + stderr)}`);
  }
  return ms;
}

const PRINT_TOKEN = "PRINT-OK";

/** Consumes replies a failed run left queued, so they cannot answer the next program. */
async function drainReplies(server: FakeLlmServer): Promise<void> {
  while (server.pendingReplies > 0) {
    const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: "{}" });
    await response.body?.cancel();
  }
}

async function measurePrint(program: Program, cwd: string, server: FakeLlmServer): Promise<number> {
  await drainReplies(server);
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: `Hello! ${PRINT_TOKEN}` }] });
  const { ms, stdout } = await timeRun(program, ["-p", "Say hello in one line."], cwd);
  if (!stdout.includes(PRINT_TOKEN)) {
    throw new Error(`${program.name} -p printed ${JSON.stringify(stdout.slice(0, 200))}`);
  }
  return ms;
}

/** A program in a tmux pane, and the epoch time just before it was exec'ed. */
interface PaneRun {
  tmux: TmuxSession;
  spawnedAt: () => Promise<number>;
}

async function startInPane(program: Program, args: string[], cwd: string): Promise<PaneRun> {
  const stamp = await Deno.makeTempFile({ dir: cwd, prefix: ".spawn-" });
  const commandLine = [...program.argv, ...args].map(shellQuote).join(" ");
  const tmux = await TmuxSession.start(
    `date +%s%N > ${shellQuote(stamp)}; exec ${commandLine}`,
    { cols: COLS, rows: ROWS, cwd, env: program.env },
  );
  const spawnedAt = async () => {
    const nanos = (await Deno.readTextFile(stamp)).trim();
    await Deno.remove(stamp);
    return Number(BigInt(nanos) / 1000n) / 1000;
  };
  return { tmux, spawnedAt };
}

/** Polls the screen until it matches; returns the epoch time it was first seen. */
async function waitForScreen(
  tmux: TmuxSession,
  pattern: RegExp,
  timeoutMs: number,
  intervalMs: number,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let screen = "";
  while (performance.now() < deadline) {
    const seenAt = nowEpochMs();
    screen = (await tmux.screen()).join("\n").trim();
    if (pattern.test(screen)) return seenAt;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; screen:\n${screen}`);
}

function readyPattern(program: Program, before: RegExp): RegExp {
  return new RegExp(`${before.source}[\\s\\S]*─{20,}[\\s\\S]*\\b${program.footerModel}$`);
}

/** Start-up time to a ready screen (ms) and RSS at idle 1 s later (KiB). */
async function measureStart(
  program: Program,
  cwd: string,
): Promise<{ ms: number; rss: number }> {
  const { tmux, spawnedAt } = await startInPane(program, [], cwd);
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

async function fileSize(path: string): Promise<number> {
  return await Deno.stat(path).then((s) => s.size, () => 0);
}

/** Waits until the pane log stops growing for `quietMs`; false if it never does. */
async function settle(log: string, quietMs = 500, timeoutMs = 15_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  let size = await fileSize(log);
  let quietSince = performance.now();
  while (performance.now() < deadline) {
    await sleep(50);
    const next = await fileSize(log);
    if (next !== size) (size = next, quietSince = performance.now());
    else if (performance.now() - quietSince >= quietMs) return true;
  }
  return false;
}

interface StreamResult {
  resumeMs: number;
  cpuMs: number;
  bytes: number;
  wallMs: number;
}

async function measureStream(
  program: Program,
  cwd: string,
  server: FakeLlmServer,
  reply: string,
): Promise<StreamResult> {
  const log = await Deno.makeTempFile({ dir: cwd, prefix: ".pane-" });
  const resumeArgs = await program.freshHistory();
  const { tmux, spawnedAt } = await startInPane(program, resumeArgs, cwd);
  try {
    await tmux.tmux("pipe-pane", "-o", "-t", "0", `cat >> ${shellQuote(log)}`);
    const resumedAt = await waitForScreen(
      tmux,
      readyPattern(program, new RegExp(HISTORY_END)),
      60_000,
      10,
    );
    const resumeMs = resumedAt - await spawnedAt();
    const pid = await programPid(await tmux.panePid());
    if (!await settle(log)) throw new Error(`${program.name} never went idle after resuming`);
    await tmux.type("Write the long answer.");
    if (!await settle(log)) throw new Error(`${program.name} never went idle after typing`);
    await drainReplies(server);
    server.enqueue({ kind: "slow", delayMs: DELTA_MS, source: { kind: "sse", body: reply } });
    const [cpuBefore, bytesBefore] = [await cpuMs(pid), await fileSize(log)];
    const start = nowEpochMs();
    await tmux.keys("Enter");
    const done = new RegExp(`${ANSWER_END}[\\s\\S]*\\b${program.footerModel}$`);
    const seenAt = await waitForScreen(tmux, done, 180_000, 50);
    if (!await settle(log)) throw new Error(`${program.name} never went idle after the answer`);
    return {
      resumeMs,
      cpuMs: await cpuMs(pid) - cpuBefore,
      bytes: await fileSize(log) - bytesBefore,
      wallMs: seenAt - start,
    };
  } finally {
    await tmux.close();
    await Deno.remove(log).catch(() => {});
  }
}

// --- report --------------------------------------------------------------------

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 160);
}

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
  const root = await Deno.makeTempDir({ prefix: "panto-cli-bench-" });
  const server = await FakeLlmServer.start();
  try {
    const denoCache = await denoDir();
    const spec = await piSpecifier();
    const piVersion = spec.slice(spec.lastIndexOf("@") + 1);
    const cwd = join(root, "work");
    await Deno.mkdir(cwd);
    const programs: Program[] = [
      await preparePanto(root, cwd, server, denoCache),
      await preparePi(
        "pi (deno)",
        [Deno.execPath(), "run", "-q", "-A", spec],
        root,
        cwd,
        server,
        denoCache,
      ),
    ];
    const columns: (Program | Unavailable)[] = [...programs];
    const nodeArgv = await piNodeArgv(piVersion);
    if (typeof nodeArgv === "string") columns.push({ name: "pi (node)", reason: nodeArgv });
    else {
      const piNode = await preparePi("pi (node)", nodeArgv, root, cwd, server, denoCache);
      programs.push(piNode);
      columns.push(piNode);
    }
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
    const resume = newRow(`resume ${HISTORY_MESSAGES}-message session to ready`, "ms");
    const cpu = newRow(`CPU while a ${ANSWER_LINES}-line answer streams`, "ms");
    const bytes = newRow("bytes written to the terminal meanwhile", "KiB");
    const wall = newRow("Enter to last line on screen", "ms");
    const rows = [version, start, rss, print, resume, cpu, bytes, wall];
    if (!tmuxAvailable) {
      for (const row of [start, rss, resume, cpu, bytes, wall]) {
        for (const p of programs) row.cells.set(p.name, { na: "tmux not found" });
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
      { ms: print },
      (p) => measurePrint(p, cwd, server).then((ms) => ({ ms })),
    );
    if (tmuxAvailable) {
      const reply = answerStream(longAnswer(ANSWER_LINES), DELTA_CHARS);
      await measure(
        programs,
        STREAM_RUNS,
        { resumeMs: resume, cpuMs: cpu, bytes, wallMs: wall },
        async (p) => {
          const result = await measureStream(p, cwd, server, reply);
          return { ...result, bytes: result.bytes / 1024 };
        },
      );
    }
    console.log(
      `streaming: ${DELTA_CHARS}-character deltas every ${DELTA_MS} ms after resuming ` +
        `${HISTORY_MESSAGES} messages; ${COLS}×${ROWS} tmux pane; CPU includes children; ` +
        `load average now ${await loadAverage()}`,
    );
    printTable(rows, columns);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

await main();
