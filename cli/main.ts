import { Agent, type Config } from "@panto/lib";
import { adHocProvider } from "./ad_hoc_provider.ts";
import { parseArgs } from "./args.ts";
import { CliError, UsageError } from "./errors.ts";
import { runPrintMode } from "./print_mode.ts";
import { defaultSystemPrompt } from "./system_prompt.ts";
import { readTool } from "./tools/read.ts";

const encoder = new TextEncoder();
const output = {
  stdout: (text: string) => writeAll(Deno.stdout, text),
  stderr: (text: string) => writeAll(Deno.stderr, text),
};

/**
 * The `panto` program.
 *
 * @param argv Command-line arguments.
 * @returns The exit code.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  const prompt = await promptFrom(args.messages);
  if (!args.print) {
    throw new UsageError(
      "The interactive mode is not available yet: pass -p/--print with a prompt",
    );
  }
  if (!prompt) {
    throw new UsageError('No prompt: pass one as an argument (panto -p "…") or pipe it on stdin');
  }
  const config: Config = { provider: adHocProvider(args) };
  if (args.maxTurns !== undefined) config.maxTurns = args.maxTurns;
  const cwd = Deno.cwd();
  const agent = new Agent({ config });
  const read = readTool({ root: cwd });
  agent.registerTool(read);
  const system = args.systemPrompt ?? defaultSystemPrompt(cwd, [read.decl.name]);
  await agent.setSystemPrompt(
    args.appendSystemPrompt ? `${system}\n\n${args.appendSystemPrompt}` : system,
  );
  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    return await runPrintMode(agent, prompt, args.mode, output, abort.signal);
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}

/** The prompt: the message arguments, then piped stdin (when stdin is not a terminal). */
async function promptFrom(messages: readonly string[]): Promise<string> {
  const parts = [messages.join(" ")];
  if (!Deno.stdin.isTerminal()) parts.push(await new Response(Deno.stdin.readable).text());
  return parts.map((p) => p.trim()).filter(Boolean).join("\n\n");
}

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    code = error instanceof CliError ? error.exitCode : 1;
    const message = error instanceof CliError
      ? error.message
      : String((error as Error)?.stack ?? error);
    output.stderr(`panto: ${message}\n`);
  }
  Deno.exit(code);
}
