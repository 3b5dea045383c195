/**
 * What the whole-program benches (`cli_bench.ts`, `stream_shapes_bench.ts`)
 * share: panto and pi prepared with a private HOME each against one fake LLM
 * server, saved sessions of earlier messages in both formats, an Anthropic
 * Messages stream of an answer, a tmux pane whose pty writes are logged, and
 * the CPU time of a process tree read from /proc.
 *
 * @module
 */
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import type { PersistentMessage } from "@panto/lib";
import { FakeLlmServer } from "../tests/support/fake_llm_server.ts";
import { piAssistantMessage } from "./pi_messages.ts";
import { shellQuote, TmuxSession } from "../tests/support/tmux.ts";
import { modeFlags } from "../cli/launcher/launch.ts";

/**
 * An integer knob from the environment, or `fallback` when unset.
 *
 * @param name Environment variable.
 * @param fallback Value when unset.
 * @param min Smallest accepted value.
 * @returns The value.
 */
export function knob(name: string, fallback: number, min = 1): number {
  const raw = Deno.env.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

const REPO = new URL("..", import.meta.url).pathname;
/** The last line of every saved history, so a resumed screen can be recognised. */
export const HISTORY_END = "HISTORY-END";
/** The last line of every streamed answer, so its end can be recognised on screen. */
export const ANSWER_END = "ANSWER-END";
const decoder = new TextDecoder();

/** One program under test. */
export interface Program {
  /** Column title. */
  name: string;
  /** The command line that starts it, before its own arguments. */
  argv: string[];
  /** Overrides of the inherited environment (a private HOME and config). */
  env: Record<string, string>;
  /** Matches the screen once the welcome is painted (before the footer). */
  welcome: RegExp;
  /** What its footer ends with once the prompt is ready (the model's name, for panto with the thinking level). */
  footerModel: string;
  /**
   * Saves a new copy of a conversation of `messages` messages, the last
   * answer replaced by `lastAnswer` when given; returns the arguments that
   * resume it.
   */
  freshHistory: (messages: number, lastAnswer?: string) => Promise<string[]>;
}

/** A column that could not be run, and why. */
export interface Unavailable {
  name: string;
  reason: string;
}

/** Terminal size of a tmux pane. */
export interface PaneSize {
  cols: number;
  rows: number;
}

// --- environment -------------------------------------------------------------

/**
 * Runs a command to completion.
 *
 * @returns Its trimmed stdout; throws with its stderr when it fails.
 */
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

/** The pinned `npm:@mariozechner/pi-coding-agent@x.y.z` specifier (from `pi_coding_agent.ts`). */
async function piSpecifier(): Promise<string> {
  const file = join(REPO, "bench/pi_coding_agent.ts");
  const spec = (await Deno.readTextFile(file)).match(
    /npm:@mariozechner\/pi-coding-agent@\d[\w.-]*/,
  );
  if (!spec) {
    throw new Error(`${file} must re-export "npm:@mariozechner/pi-coding-agent@x.y.z"`);
  }
  return spec[0];
}

/** Other work on the machine skews every figure: the report says how busy it was. */
export async function loadAverage(): Promise<string> {
  return await Deno.readTextFile("/proc/loadavg").then(
    (text) => text.split(" ").slice(0, 3).join(" "),
    () => "unknown",
  );
}

const CLOCK_TICKS = await run("getconf", ["CLK_TCK"]).then(Number, () => 100);

// --- programs ----------------------------------------------------------------

const TERMINAL_ENV = { TERM: "xterm-256color", COLORTERM: "truecolor" };

/** panto (`cli/main.ts`) with `$PANTO_HOME/config.json` naming the fake provider. */
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
    // The footer ends with the alias and the thinking level.
    footerModel: "fake · thinking off",
    freshHistory: async (messages, lastAnswer) => [
      "-r",
      await writePantoHistory(join(pantoHome, "sessions"), cwd, server, messages, lastAnswer),
    ],
  };
}

/**
 * pi run by `argv`, with `~/.pi/agent/models.json` (a custom
 * `anthropic-messages` provider) and `settings.json` selecting it, and
 * `PI_OFFLINE=1` so it makes no startup network request.
 */
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
    freshHistory: async (messages, lastAnswer) => [
      "--session",
      await writePiHistory(join(home, "history"), cwd, messages, lastAnswer),
    ],
  };
}

/** Where a bench runs: a temporary root, its `work` directory, the fake server, and the programs. */
export interface BenchSite {
  root: string;
  /** The programs' working directory. */
  cwd: string;
  server: FakeLlmServer;
  /** What runs (see `preparePrograms`). */
  programs: Program[];
  /** The table's columns: the programs, and the ones that cannot run, with why. */
  columns: (Program | Unavailable)[];
  piVersion: string;
}

/**
 * Runs `body` with the programs prepared in a temporary root (its name
 * starting with `prefix`) and a fake server, then closes the server and
 * removes the root.
 */
export async function withPrograms(
  prefix: string,
  nodePrefix: string | undefined,
  body: (site: BenchSite) => Promise<void>,
  withPiDeno = true,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix });
  const server = await FakeLlmServer.start();
  try {
    const cwd = join(root, "work");
    await Deno.mkdir(cwd);
    const prepared = await preparePrograms(root, cwd, server, nodePrefix, withPiDeno);
    await body({ root, cwd, server, ...prepared });
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/**
 * panto, then pi on Deno (unless `withPiDeno` is false), then pi on node when
 * `nodePrefix`, or the `pi` command on PATH, is an npm install of the pinned
 * version (else a column saying why not).
 */
async function preparePrograms(
  root: string,
  cwd: string,
  server: FakeLlmServer,
  nodePrefix: string | undefined,
  withPiDeno = true,
): Promise<{ programs: Program[]; columns: (Program | Unavailable)[]; piVersion: string }> {
  const denoCache = await denoDir();
  const spec = await piSpecifier();
  const piVersion = spec.slice(spec.lastIndexOf("@") + 1);
  const piDeno = [Deno.execPath(), "run", "-q", "-A", spec];
  const programs: Program[] = [await preparePanto(root, cwd, server, denoCache)];
  if (withPiDeno) programs.push(await preparePi("pi (deno)", piDeno, root, cwd, server, denoCache));
  const columns: (Program | Unavailable)[] = [...programs];
  const nodeArgv = await piNodeArgv(piVersion, nodePrefix);
  if (typeof nodeArgv === "string") columns.push({ name: "pi (node)", reason: nodeArgv });
  else {
    const piNode = await preparePi("pi (node)", nodeArgv, root, cwd, server, denoCache);
    programs.push(piNode);
    columns.push(piNode);
  }
  return { programs, columns, piVersion };
}

/**
 * The package directory of the `pi` command on PATH (npm links it to
 * `<package>/dist/cli.js`), if there is one.
 */
async function piOnPath(): Promise<string | undefined> {
  const bin = await run("sh", ["-c", "command -v pi"]).catch(() => "");
  if (!bin) return undefined;
  const cli = await Deno.realPath(bin).catch(() => undefined);
  return cli?.endsWith("/dist/cli.js") ? cli.slice(0, -"/dist/cli.js".length) : undefined;
}

/** pi run by node from an `npm install --prefix` directory or PATH, or why it cannot be. */
async function piNodeArgv(version: string, prefix: string | undefined): Promise<string[] | string> {
  const packageDir = prefix
    ? join(prefix, "node_modules/@mariozechner/pi-coding-agent")
    : await piOnPath();
  if (!packageDir) {
    return `no pi on PATH; set BENCH_PI_NODE_PREFIX=DIR after npm install --prefix DIR @mariozechner/pi-coding-agent@${version}`;
  }
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

/** GNU time, which reports a finished process's peak RSS; without it that row is n/a. */
export const GNU_TIME = "/usr/bin/time";
export const gnuTimeAvailable = await Deno.stat(GNU_TIME).then((info) => info.isFile, () => false);

/**
 * Runs the program to exit; returns the wall time (ms), its output and, with
 * `peakRss`, its peak RSS (KiB, from GNU time, whose report is the last line
 * of stderr and is removed from it).
 */
export async function timeRun(
  program: Program,
  args: string[],
  cwd: string,
  peakRss = false,
): Promise<{ ms: number; stdout: string; stderr: string; peakKiB?: number }> {
  const [command, ...prefix] = program.argv;
  const wrapped = peakRss ? [GNU_TIME, "-f", "%M", command!, ...prefix] : [command!, ...prefix];
  const start = performance.now();
  const out = await new Deno.Command(wrapped[0]!, {
    args: [...wrapped.slice(1), ...args],
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
  const stderrLines = decoder.decode(out.stderr).trimEnd().split("\n");
  const peakKiB = peakRss ? Number(stderrLines.pop()) : undefined;
  return {
    ms,
    stdout: decoder.decode(out.stdout),
    stderr: stderrLines.join("\n"),
    ...(peakKiB === undefined ? {} : { peakKiB }),
  };
}

/** panto with the Deno flags its launcher gives a start with `args` (`modeFlags`); pi as it is. */
export function asLaunched(program: Program, args: readonly string[]): Program {
  const [deno, subcommand, ...rest] = program.argv;
  return program.name === "panto" && subcommand === "run"
    ? { ...program, argv: [deno!, subcommand, ...modeFlags(args), ...rest] }
    : program;
}

// --- conversations -------------------------------------------------------------

function historyQuestion(n: number): string {
  return `Question ${n}: how does step ${n} of the build work?`;
}

function historyAnswer(n: number, last: boolean, lastAnswer: string | undefined): string {
  if (last && lastAnswer !== undefined) return `${lastAnswer}\n\n${HISTORY_END}`;
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
  count: number,
  lastAnswer: string | undefined,
): Promise<string> {
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create({ cwd });
    const messages: PersistentMessage[] = [];
    for (let i = 0; i < count; i += 2) {
      const timestamp = new Date().toISOString();
      const text = historyAnswer(i / 2, i + 2 >= count, lastAnswer);
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
async function writePiHistory(
  dir: string,
  cwd: string,
  count: number,
  lastAnswer: string | undefined,
): Promise<string> {
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
  for (let i = 0; i < count; i += 2) {
    const content = (text: string) => [{ type: "text", text }];
    append({ role: "user", content: content(historyQuestion(i / 2)), timestamp: Date.now() });
    append(
      piAssistantMessage(historyAnswer(i / 2, i + 2 >= count, lastAnswer), "fake-model", "fake"),
    );
  }
  const file = join(dir, `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
  await Deno.writeTextFile(file, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return file;
}

/** One content block of a streamed answer. */
export interface AnswerBlock {
  type: "text" | "thinking";
  text: string;
}

/**
 * The answer as an Anthropic Messages stream, each block in
 * `deltaChars`-character deltas (one SSE event each).
 */
export function answerStream(blocks: readonly AnswerBlock[], deltaChars: number): string {
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
  ];
  blocks.forEach(({ type, text }, index) => {
    const thinking = type === "thinking";
    const contentBlock = thinking ? { type, thinking: "", signature: "" } : { type, text: "" };
    parts.push(event({ type: "content_block_start", index, content_block: contentBlock }));
    for (let i = 0; i < text.length; i += deltaChars) {
      const piece = text.slice(i, i + deltaChars);
      const delta = thinking
        ? { type: "thinking_delta", thinking: piece }
        : { type: "text_delta", text: piece };
      parts.push(event({ type: "content_block_delta", index, delta }));
    }
    if (thinking) {
      const delta = { type: "signature_delta", signature: "fake-signature" };
      parts.push(event({ type: "content_block_delta", index, delta }));
    }
    parts.push(event({ type: "content_block_stop", index }));
  });
  const chars = blocks.reduce((sum, block) => sum + block.text.length, 0);
  parts.push(
    event({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: Math.ceil(chars / 4) },
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
export async function programPid(panePid: number): Promise<number> {
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
export async function rssKiB(pid: number): Promise<number> {
  let total = 0;
  for (const p of subtree(await procTable(), pid)) {
    const status = await Deno.readTextFile(`/proc/${p}/status`).catch(() => "");
    total += Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0);
  }
  return total;
}

// --- running -------------------------------------------------------------------

/** Milliseconds since the epoch, sub-millisecond. */
export const nowEpochMs = (): number => performance.timeOrigin + performance.now();
/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<unknown> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** The median of a non-empty list. */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Consumes replies a failed run left queued, so they cannot answer the next program. */
export async function drainReplies(server: FakeLlmServer): Promise<void> {
  while (server.pendingReplies > 0) {
    const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: "{}" });
    await response.body?.cancel();
  }
}

/** A program in a tmux pane, and the epoch time just before it was exec'ed. */
interface PaneRun {
  tmux: TmuxSession;
  spawnedAt: () => Promise<number>;
}

/** Starts the program in a fresh tmux server's pane of `size`. */
export async function startInPane(
  program: Program,
  args: string[],
  cwd: string,
  size: PaneSize,
): Promise<PaneRun> {
  const stamp = await Deno.makeTempFile({ dir: cwd, prefix: ".spawn-" });
  const commandLine = [...program.argv, ...args].map(shellQuote).join(" ");
  const tmux = await TmuxSession.start(
    `date +%s%N > ${shellQuote(stamp)}; exec ${commandLine}`,
    { ...size, cwd, env: program.env },
  );
  await tmux.tmux("set-option", "-w", "-t", "0", "remain-on-exit", "on");
  const spawnedAt = async () => {
    const nanos = (await Deno.readTextFile(stamp)).trim();
    await Deno.remove(stamp);
    return Number(BigInt(nanos) / 1000n) / 1000;
  };
  return { tmux, spawnedAt };
}

/** Polls the screen until it matches; returns the epoch time it was first seen. */
export async function waitForScreen(
  tmux: TmuxSession,
  pattern: RegExp,
  timeoutMs: number,
  intervalMs: number,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let screen = "";
  for (let poll = 1; performance.now() < deadline; poll++) {
    const seenAt = nowEpochMs();
    screen = (await tmux.screen()).join("\n").trim();
    if (pattern.test(screen)) return seenAt;
    if (poll % 20 === 0) await throwIfExited(tmux, screen);
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; screen:\n${screen}`);
}

/** The pane stays after its program exits (`remain-on-exit`): fail with its last words. */
async function throwIfExited(tmux: TmuxSession, screen: string): Promise<void> {
  const [dead, status] =
    (await tmux.tmux("display", "-p", "-t", "0", "#{pane_dead} #{pane_dead_status}"))
      .trim().split(" ");
  if (dead !== "1") return;
  const last = screen.split("\n").filter((line) => line.trim()).slice(-3).join(" | ");
  throw new Error(`the program exited with status ${status}; last lines: ${last}`);
}

/** Matches a screen showing `before`, then the editor's rule and the footer. */
export function readyPattern(program: Program, before: RegExp): RegExp {
  return new RegExp(`${before.source}[\\s\\S]*─{20,}[\\s\\S]*\\b${program.footerModel}$`);
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

/** What one streamed answer cost a program. */
export interface StreamResult {
  /** Spawn until the resumed history and the footer are on screen. */
  resumeMs: number;
  /** CPU of the program's process tree from Enter until the pane is quiet. */
  cpuMs: number;
  /** Bytes the program wrote to its pty meanwhile. */
  bytes: number;
  /** Enter until the answer's last line and the footer are on screen. */
  wallMs: number;
  /** The pane's whole history (scrollback and screen) once it is quiet. */
  history: string[];
  /** What {@linkcode StreamPlan.probe} returned (empty without one). */
  probed: number[];
  /** Resident memory of the process tree 1 s after the pane went quiet, in KiB. */
  idleRssKiB: number;
}

/** How one answer is streamed into a resumed session. */
export interface StreamPlan {
  /** The SSE body the fake server sends, one event every `deltaMs`. */
  reply: string;
  deltaMs: number;
  /** Earlier messages in the resumed session. */
  historyMessages: number;
  /** The resumed session's last answer, instead of the usual short one. */
  lastAnswer?: string;
  pane: PaneSize;
  /** Runs right after Enter, while the answer streams (e.g. types and times keystrokes). */
  probe?: (tmux: TmuxSession) => Promise<number[]>;
}

/**
 * Resumes a fresh saved session in a tmux pane, sends a prompt and streams
 * `plan.reply` (which must end with {@linkcode ANSWER_END}), measuring from
 * Enter until the pane has been quiet 0.5 s.
 */
export async function measureStream(
  program: Program,
  cwd: string,
  server: FakeLlmServer,
  plan: StreamPlan,
): Promise<StreamResult> {
  const log = await Deno.makeTempFile({ dir: cwd, prefix: ".pane-" });
  const resumeArgs = await program.freshHistory(plan.historyMessages, plan.lastAnswer);
  const { tmux, spawnedAt } = await startInPane(program, resumeArgs, cwd, plan.pane);
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
    server.enqueue({
      kind: "slow",
      delayMs: plan.deltaMs,
      source: { kind: "sse", body: plan.reply },
    });
    const [cpuBefore, bytesBefore] = [await cpuMs(pid), await fileSize(log)];
    const start = nowEpochMs();
    await tmux.keys("Enter");
    const probed = plan.probe ? await plan.probe(tmux) : [];
    const done = new RegExp(`${ANSWER_END}[\\s\\S]*\\b${program.footerModel}$`);
    const seenAt = await waitForScreen(tmux, done, 300_000, 50);
    if (!await settle(log)) throw new Error(`${program.name} never went idle after the answer`);
    await sleep(1000);
    const idleRssKiB = await rssKiB(pid);
    return {
      resumeMs,
      cpuMs: await cpuMs(pid) - cpuBefore,
      bytes: await fileSize(log) - bytesBefore,
      wallMs: seenAt - start,
      history: await tmux.history(),
      probed,
      idleRssKiB,
    };
  } finally {
    await tmux.close();
    await Deno.remove(log).catch(() => {});
  }
}

/** The first line of an error's message, cut to fit a table cell. */
export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 160);
}
