import { fileURLToPath } from "node:url";

const APPEND_CHILD = fileURLToPath(new URL("./append_child.ts", import.meta.url));

/** A running writer process (`append_child.ts` by default) whose stdout is read line by line. */
export class ChildWriter {
  readonly process: Deno.ChildProcess;
  /** Every line printed so far. */
  readonly lines: string[] = [];
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #stderr: Promise<string>;
  #done = false;

  /**
   * Starts the writer.
   *
   * @param args Arguments of the child script.
   * @param script The child script (default `append_child.ts`).
   */
  constructor(args: string[], script = APPEND_CHILD) {
    this.process = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", script, ...args],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#reader = this.process.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.#stderr = new Response(this.process.stderr).text();
  }

  /** The next line, or `null` at end of output. */
  async nextLine(): Promise<string | null> {
    while (!this.#buffer.includes("\n")) {
      if (this.#done) return null;
      const { value, done } = await this.#reader.read();
      if (done) {
        this.#done = true;
        if (this.#buffer === "") return null;
        this.#buffer += "\n";
      } else {
        this.#buffer += value;
      }
    }
    const at = this.#buffer.indexOf("\n");
    const line = this.#buffer.slice(0, at);
    this.#buffer = this.#buffer.slice(at + 1);
    this.lines.push(line);
    return line;
  }

  /** Reads until a line matches; throws if output ends first. */
  async waitFor(pattern: RegExp): Promise<string> {
    for (let line = await this.nextLine(); line !== null; line = await this.nextLine()) {
      if (pattern.test(line)) return line;
    }
    throw new Error(
      `child ended without printing ${pattern}: ${this.lines.join(" | ")} ${await this.#stderr}`,
    );
  }

  /** Closes stdin, reads all output and waits for the exit. */
  async finish(): Promise<{ code: number; stderr: string }> {
    await this.process.stdin.close().catch(() => {});
    while (await this.nextLine() !== null) { /* drain */ }
    const status = await this.process.status;
    return { code: status.code, stderr: await this.#stderr };
  }
}
