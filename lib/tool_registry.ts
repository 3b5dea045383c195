import { Validator } from "@cfworker/json-schema";
import type { ResultPart, ToolUseBlock } from "./content.ts";
import { errorMessage } from "./error_message.ts";
import { ToolRegistrationError } from "./errors.ts";
import type { Tool, ToolDecl, ToolOutput, ToolSource } from "./tool.ts";

/** Names both wire protocols accept as they are. */
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Names we accept at all: no whitespace or control characters, bounded length. */
const ACCEPTABLE_NAME = /^[^\s\p{Cc}]{1,128}$/u;

/** The outcome of running one call. */
export interface CallOutcome {
  /** Parts the model will see. */
  parts: ResultPart[];
  /** True when the call failed. */
  isError: boolean;
}

interface Entry {
  tool: Tool;
  wireName: string;
  validator: Validator | undefined;
}

/**
 * The agent's tool set: validates names, encodes them for the wire, checks
 * arguments against each tool's schema and turns every failure into an
 * error result the model can read.
 */
export class ToolRegistry {
  #byName = new Map<string, Entry>();
  #byWireName = new Map<string, Entry>();
  #sources: ToolSource[] = [];

  /**
   * Adds a tool.
   *
   * @param tool The tool.
   * @throws {ToolRegistrationError} When the name is invalid or taken.
   */
  register(tool: Tool): void {
    const name = tool.decl.name;
    if (!ACCEPTABLE_NAME.test(name)) {
      throw new ToolRegistrationError(
        `Tool name ${
          JSON.stringify(name)
        } is invalid: use 1-128 characters without spaces or control characters (letters, digits, "_" and "-" are sent as they are)`,
      );
    }
    if (this.#byName.has(name)) {
      throw new ToolRegistrationError(
        `Tool name ${
          JSON.stringify(name)
        } is already registered: give the second tool another name`,
      );
    }
    const entry: Entry = { tool, wireName: this.#wireNameFor(name), validator: undefined };
    this.#byName.set(name, entry);
    this.#byWireName.set(entry.wireName, entry);
  }

  /**
   * Adds a source whose tools are fetched at the start of each run.
   *
   * @param source The source.
   */
  registerSource(source: ToolSource): void {
    this.#sources.push(source);
  }

  /**
   * Fetches the tools of every source not yet loaded and registers them.
   * A source whose tools cannot be listed fails the run with its name; it
   * and the sources after it are tried again at the next run.
   */
  async loadSources(): Promise<void> {
    while (this.#sources.length > 0) {
      const source = this.#sources[0]!;
      let tools: readonly Tool[];
      try {
        tools = await source.tools();
      } catch (error) {
        throw new Error(
          `Tool source ${JSON.stringify(source.name)} failed to list its tools: ${
            errorMessage(error)
          }`,
          { cause: error },
        );
      }
      this.#sources.shift();
      for (const tool of tools) this.register(tool);
    }
  }

  /** Declarations with wire-encoded names, in registration order. */
  wireDecls(): ToolDecl[] {
    return [...this.#byName.values()].map((entry) => ({
      ...entry.tool.decl,
      name: entry.wireName,
    }));
  }

  /** Declarations as registered (for provenance). */
  decls(): ToolDecl[] {
    return [...this.#byName.values()].map((entry) => entry.tool.decl);
  }

  /**
   * The registered name for a wire name (unknown names come back unchanged).
   *
   * @param wireName The name the model used.
   * @returns The tool's own name.
   */
  decodeName(wireName: string): string {
    return this.#byWireName.get(wireName)?.tool.decl.name ?? wireName;
  }

  /**
   * Runs one call. Never throws: unknown tools, bad arguments, thrown errors
   * and aborts all become error results.
   *
   * @param call The call, with the tool's registered name.
   * @param signal Aborts the tool.
   * @returns What the model will see.
   */
  async execute(call: ToolUseBlock, signal: AbortSignal): Promise<CallOutcome> {
    const entry = this.#byName.get(call.name);
    if (!entry) return errorOutcome(this.#unknownToolMessage(call.name));
    if (call.invalidInput !== undefined) {
      return errorOutcome(
        `The arguments for ${call.name} were not valid JSON (the output may have been cut off): ${
          clip(call.invalidInput)
        }. Send the call again with complete JSON arguments.`,
      );
    }
    let problem: string | null;
    try {
      problem = this.#validate(entry, call.input);
    } catch (error) {
      // A schema the validator cannot apply (e.g. an unresolved $ref) is the tool's fault.
      return errorOutcome(
        `${call.name} was not run: its input schema could not be applied: ${errorMessage(error)}`,
      );
    }
    if (problem) return errorOutcome(problem);
    if (signal.aborted) return errorOutcome(`${call.name} was not run: the turn was aborted`);
    try {
      const running = Promise.resolve(entry.tool.execute(call.input, { signal, callId: call.id }));
      return normalise(await untilAborted(running, signal));
    } catch (error) {
      if (signal.aborted) return errorOutcome(`${call.name} was aborted: ${errorMessage(error)}`);
      return errorOutcome(`${call.name} failed: ${errorMessage(error)}`);
    }
  }

  #validate(entry: Entry, input: Record<string, unknown>): string | null {
    entry.validator ??= new Validator(entry.tool.decl.inputSchema as never, "2020-12", false);
    const result = entry.validator.validate(input);
    if (result.valid) return null;
    const details = result.errors
      .filter((e) => e.keyword !== "properties" && e.keyword !== "$ref")
      .slice(0, 5)
      .map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`);
    return `Invalid arguments for ${entry.tool.decl.name}: ${
      details.join("; ")
    }. Arguments received: ${
      clip(JSON.stringify(input))
    }. Fix them to match the tool's schema and call it again.`;
  }

  #unknownToolMessage(name: string): string {
    const known = [...this.#byName.keys()];
    return `Tool ${JSON.stringify(name)} is not available. Available tools: ${
      known.length ? known.join(", ") : "none"
    }`;
  }

  /** Wire names must match both APIs' pattern; others are sanitised and made unique. */
  #wireNameFor(name: string): string {
    if (WIRE_NAME.test(name) && !this.#byWireName.has(name)) return name;
    const base = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 56) || "tool";
    let candidate = base;
    for (let n = 2; this.#byWireName.has(candidate) || this.#byName.has(candidate); n++) {
      candidate = `${base}_${n}`;
    }
    return candidate;
  }
}

/** Settles with `promise`, or rejects as soon as `signal` aborts: a tool that ignores the signal cannot hang the turn. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new DOMException("Aborted", "AbortError"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function normalise(output: ToolOutput): CallOutcome {
  if (Array.isArray(output)) return { parts: output, isError: false };
  return { parts: output.parts, isError: output.isError ?? false };
}

function errorOutcome(message: string): CallOutcome {
  return { parts: [{ type: "text", text: message }], isError: true };
}

function clip(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
