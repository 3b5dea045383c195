/** The result of running the panto program. */
export interface PantoRun {
  code: number;
  stdout: string;
  stderr: string;
}

const MAIN = new URL("../../cli/main.ts", import.meta.url).pathname;

/**
 * Runs `deno run -A cli/main.ts …args` in `cwd` with the given environment
 * (on top of a minimal one: PATH, HOME) and stdin text.
 */
export async function runPanto(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<PantoRun> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, ...args],
    cwd: options.cwd ?? Deno.cwd(),
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: options.env?.HOME ?? Deno.env.get("HOME") ?? "/tmp",
      NO_COLOR: "1",
      ...options.env,
    },
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
