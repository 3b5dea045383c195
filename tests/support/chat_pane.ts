/**
 * panto's chat in a 100x30 tmux pane against the fake LLM server, for the
 * end-to-end tests that type into it and read its screen.
 */
import { dirname, join } from "node:path";
import { writeFakeConfig } from "./fake_config.ts";
import { FakeLlmServer } from "./fake_llm_server.ts";
import { PANTO_SH_COMMAND, pantoPaneEnv, TmuxSession } from "./tmux.ts";

/** What a chat pane runs with. */
export interface ChatPane {
  /** The fake server (no retries configured). */
  server: FakeLlmServer;
  /** The pane, running panto in `project`. */
  tmux: TmuxSession;
  /** The working directory. */
  project: string;
  /** HOME and PANTO_HOME. */
  home: string;
}

/** Options for {@linkcode withChatPane}. */
export interface ChatPaneOptions {
  /** Files written into the project before panto starts, by relative path. */
  files?: Record<string, string>;
  /** Files written into the home (HOME and PANTO_HOME) before panto starts, by relative path. */
  homeFiles?: Record<string, string>;
  /** More environment variables for the pane. */
  env?: Record<string, string>;
  /** The sh command that starts panto (default: `deno run -A cli/main.ts`). */
  command?: string;
  /** More top-level settings of `$PANTO_HOME/config.json` (e.g. `theme`, `keybindings`, `tools`). */
  config?: Record<string, unknown>;
}

/**
 * Runs `fn` with panto started in a fresh project and home; the pane, the
 * server and both directories are gone afterwards.
 *
 * @param options Project files, extra environment, the command, more config.
 * @param fn The test body.
 */
export async function withChatPane(
  options: ChatPaneOptions,
  fn: (pane: ChatPane) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const project = await Deno.makeTempDir({ prefix: "panto-project-" });
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    await writeFiles(project, options.files);
    await writeFiles(home, options.homeFiles);
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 }, ...options.config });
    const tmux = await TmuxSession.start(`${options.command ?? PANTO_SH_COMMAND}; sleep 60`, {
      cols: 100,
      rows: 30,
      cwd: project,
      env: { ...pantoPaneEnv(home), ...options.env },
    });
    try {
      await fn({ server, tmux, project, home });
    } finally {
      await tmux.close();
    }
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

async function writeFiles(dir: string, files: Record<string, string> = {}): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
}
