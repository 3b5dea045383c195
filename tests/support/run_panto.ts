import { childEnv } from "./child_env.ts";

/** The result of running the panto program. */
export interface PantoRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@linkcode runPanto}. */
export interface RunPantoOptions {
  /** Working directory (default: this process's). */
  cwd?: string;
  /** Extra environment variables; PANTO_HOME here replaces the temporary one. */
  env?: Record<string, string>;
  /** Text piped to stdin (default: no stdin). */
  stdin?: string;
}

const MAIN = new URL("../../cli/main.ts", import.meta.url).pathname;

/**
 * Runs `deno run -A cli/main.ts …args` with a minimal environment: PATH,
 * Deno's module cache, NO_COLOR, and a fresh temporary PANTO_HOME and HOME
 * unless given — so no test ever touches the real `~/.panto`.
 */
export async function runPanto(
  args: readonly string[],
  options: RunPantoOptions = {},
): Promise<PantoRun> {
  const given = options.env?.PANTO_HOME;
  const home = given ?? await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    return await spawnPanto(args, options, home);
  } finally {
    if (given === undefined) await Deno.remove(home, { recursive: true });
  }
}

async function spawnPanto(
  args: readonly string[],
  options: RunPantoOptions,
  home: string,
): Promise<PantoRun> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, ...args],
    cwd: options.cwd ?? Deno.cwd(),
    clearEnv: true,
    env: { ...childEnv(home), PANTO_HOME: home, NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
