/**
 * The worst tool inputs panto has met, each once a freeze or a memory
 * blow-up, as the fault suite (`tests/cli/faults/`) feeds them to the real
 * program: what each puts in the project (and `$PANTO_HOME`), and the
 * model's reply that calls the tools on it (OpenAI Chat Completions, the
 * protocol of the fake config's default model `fast`).
 *
 * Each input keeps its files under a directory of its own, so one project
 * can hold them all (the chat test) and each call reaches only its own.
 *
 * @module
 */
import { join } from "node:path";
import { craftPng } from "./crafted_png.ts";
import { FakeLlmServer, type FakeReply } from "./fake_llm_server.ts";
import { writeFakeConfig } from "./fake_config.ts";
import { STDIO_SERVER_COMMAND } from "./mcp_test_server.ts";

/** One hostile input. */
export interface HostileInput {
  /** Its name in test names and printed figures, e.g. `image bomb`. */
  name: string;
  /** The tools the reply calls (one `tool_dispatch_start` each). */
  tools: readonly string[];
  /** The model's reply calling them. */
  reply: FakeReply;
}

/** The MCP server of the flood input, as configured: its tool is `hostile__flood`. */
export const MCP_SERVER_NAME = "hostile";

/** Megabytes of text the `flood` call answers with. */
export const FLOOD_MEGABYTES = 50;

/** Lines of the file the diff input edits, every one matched by `oldText`. */
export const EDIT_LINES = 50_000;

/** Directories nested in the deep-directories input. */
export const NESTED_DIRECTORIES = 2_000;

/** How deep the arguments of the deep-arguments call nest. */
export const ARGUMENT_DEPTH = 20_000;

/** A glob that backtracks without end over long runs of `a` in a naive matcher. */
const BACKTRACKING_GLOB = `${"*a".repeat(30)}*b`;

/** A reply that calls `calls` in one turn. */
function toolTurn(calls: [name: string, input: unknown][]): FakeReply {
  return {
    kind: "turn",
    blocks: calls.map(([name, input], i) => ({
      type: "tool_use" as const,
      id: `call_hostile_${i}`,
      name,
      input,
    })),
  };
}

/**
 * A call of `read` whose arguments nest {@linkcode ARGUMENT_DEPTH} deep, as
 * an OpenAI-style server streams it (in two fragments).
 */
function deepArgumentsReply(): FakeReply {
  const deep = `{"path":${"[".repeat(ARGUMENT_DEPTH)}${"]".repeat(ARGUMENT_DEPTH)}}`;
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: unknown, finish: string | null) =>
    data({ id: "c-deep", choices: [{ index: 0, delta, finish_reason: finish }] });
  const fragment = (text: string) =>
    chunk({ tool_calls: [{ index: 0, function: { arguments: text } }] }, null);
  const body = chunk({
    role: "assistant",
    tool_calls: [{
      index: 0,
      id: "call_hostile_0",
      type: "function",
      function: { name: "read", arguments: "" },
    }],
  }, null) + fragment(deep.slice(0, 9000)) + fragment(deep.slice(9000)) +
    chunk({}, "tool_calls") + "data: [DONE]\n\n";
  return { kind: "sse", body };
}

/** The six inputs, in the order the suite runs them. */
export const HOSTILE_INPUTS: readonly HostileInput[] = [
  {
    name: "image bomb",
    tools: ["read"],
    reply: toolTurn([["read", { path: "bomb/bomb.png" }]]),
  },
  {
    name: "diff",
    tools: ["edit"],
    reply: toolTurn([[
      "edit",
      { path: "diff/big.txt", oldText: "same line", newText: "other line", replaceAll: true },
    ]]),
  },
  {
    name: "glob",
    tools: ["find", "grep"],
    reply: toolTurn([
      ["find", { pattern: BACKTRACKING_GLOB, path: "glob" }],
      ["grep", { pattern: "needle", path: "glob", glob: BACKTRACKING_GLOB }],
    ]),
  },
  {
    name: "deep directories",
    tools: ["find", "grep"],
    reply: toolTurn([
      ["find", { pattern: "leaf.*", path: "deep" }],
      ["grep", { pattern: "needle", path: "deep" }],
    ]),
  },
  {
    name: "huge MCP result",
    tools: [`${MCP_SERVER_NAME}__flood`],
    reply: toolTurn([[`${MCP_SERVER_NAME}__flood`, { megabytes: FLOOD_MEGABYTES }]]),
  },
  {
    name: "deep arguments",
    tools: ["read"],
    reply: deepArgumentsReply(),
  },
];

let bombBytes: Promise<Uint8Array> | undefined;

/** The 30000×30000 1-bit PNG (about 110 KB), crafted once per process. */
function bomb(): Promise<Uint8Array> {
  bombBytes ??= craftPng({ width: 30000, height: 30000, depth: 1, colorType: 0 });
  return bombBytes;
}

/**
 * Writes what the inputs need into a fresh project: `bomb/bomb.png`,
 * `diff/big.txt` ({@linkcode EDIT_LINES} lines of `same line`), `glob/`
 * (names of 60 to 250 `a`s and one of 40 `a`s then `b`) and `deep/`
 * ({@linkcode NESTED_DIRECTORIES} nested directories `d`, each with a
 * `.gitignore`, and `leaf.txt` at the bottom).
 *
 * @param project The project directory.
 * @param names The inputs to prepare (default: all).
 */
export async function writeHostileProject(
  project: string,
  names: readonly string[] = HOSTILE_INPUTS.map((input) => input.name),
): Promise<void> {
  if (names.includes("image bomb")) {
    await Deno.mkdir(join(project, "bomb"));
    await Deno.writeFile(join(project, "bomb", "bomb.png"), await bomb());
  }
  if (names.includes("diff")) {
    await Deno.mkdir(join(project, "diff"));
    await Deno.writeTextFile(join(project, "diff", "big.txt"), "same line\n".repeat(EDIT_LINES));
  }
  if (names.includes("glob")) {
    await Deno.mkdir(join(project, "glob"));
    for (const n of [250, 200, 120, 60]) {
      await Deno.writeTextFile(join(project, "glob", "a".repeat(n)), "needle\n");
    }
    await Deno.writeTextFile(join(project, "glob", `${"a".repeat(40)}b`), "needle\n");
  }
  if (names.includes("deep directories")) {
    const levels = Array<string>(NESTED_DIRECTORIES).fill("d");
    const deepest = join(project, "deep", ...levels);
    await Deno.mkdir(deepest, { recursive: true });
    let dir = join(project, "deep");
    for (let level = 1; level <= NESTED_DIRECTORIES; level++) {
      dir = join(dir, "d");
      // Names only, and patterns with a `/` (anchored to their directory), alternately.
      await Deno.writeTextFile(
        join(dir, ".gitignore"),
        level % 2 ? "*.log\n" : "/build\nx/*.tmp\n",
      );
    }
    await Deno.writeTextFile(join(deepest, "leaf.txt"), "needle\n");
  }
}

/**
 * Writes `<home>/config.json` for the fake server, with no retries and,
 * with `mcp`, the test MCP server (stdio) as `hostile`.
 *
 * @param home The `PANTO_HOME` directory.
 * @param server The fake LLM server.
 * @param mcp Whether to configure the MCP server.
 */
export async function writeHostileConfig(
  home: string,
  server: FakeLlmServer,
  mcp: boolean,
): Promise<void> {
  const denoDir = Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
  const mcpServer = { ...STDIO_SERVER_COMMAND, env: { DENO_DIR: denoDir } };
  await writeFakeConfig(home, server, {
    retry: { maxRetries: 0 },
    ...(mcp ? { mcpServers: { [MCP_SERVER_NAME]: mcpServer } } : {}),
  });
}

/** A turn answering `text`. */
export function textReply(text: string): FakeReply {
  return { kind: "turn", blocks: [{ type: "text", text }] };
}

/**
 * A reply that never ends (its headers and first bytes, then silence until
 * the client leaves): queued after a hostile call, it keeps the run going
 * whatever the tool did, so a signal always finds it running.
 */
export const STALLED_REPLY: FakeReply = {
  kind: "stall",
  afterBytes: 60,
  source: { kind: "turn", blocks: [{ type: "text", text: "never finished" }] },
};

/** What one run of an input gets: a fake server, a fresh project and home. */
export interface HostileRun {
  /** The fake LLM server the home's config points at. */
  server: FakeLlmServer;
  /** The project, holding the input's files. */
  project: string;
  /** `HOME` and `PANTO_HOME`. */
  home: string;
}

/**
 * Runs `fn` with a fresh fake server, project and home prepared for
 * `input` (its files; the MCP server configured for the MCP input); all
 * gone afterwards.
 *
 * @param input The input.
 * @param fn The run.
 */
export async function withHostileRun(
  input: HostileInput,
  fn: (run: HostileRun) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const project = await Deno.makeTempDir({ prefix: "panto-fault-" });
  const home = await Deno.makeTempDir({ prefix: "panto-fault-home-" });
  try {
    await writeHostileProject(project, [input.name]);
    await writeHostileConfig(home, server, input.tools.some((tool) => tool.includes("__")));
    await fn({ server, project, home });
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/**
 * Takes the replies panto did not ask for off the server's queue (the
 * stalled reply after a call that was stopped before it returned), so the
 * next run gets the reply queued for it: each is requested and dropped.
 *
 * @param server The fake LLM server (nothing may be asking it meanwhile).
 */
export async function dropPendingReplies(server: FakeLlmServer): Promise<void> {
  while (server.pendingReplies > 0) {
    const response = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "dropped", messages: [] }),
    });
    await response.body?.cancel();
  }
}
