import type { Validator } from "@cfworker/json-schema";
import type { ResultPart, ToolUseBlock } from "./content.ts";
import { errorMessage } from "./error_message.ts";
import { ToolRegistrationError, ToolSourceError } from "./errors.ts";
import type {
  BeforeToolCallHook,
  Tool,
  ToolCall,
  ToolCallResult,
  ToolDecl,
  ToolHooks,
  ToolOutput,
  ToolSource,
} from "./tool.ts";

/** Names both wire protocols accept as they are. */
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Names we accept at all: no whitespace or control characters, bounded length. */
const ACCEPTABLE_NAME = /^[^\s\p{Cc}]{1,128}$/u;

/** A finished call: the call as the tool received it, and what the model will see. */
export interface Dispatched {
  /** The call, with the input a `beforeToolCall` hook gave it. */
  call: ToolUseBlock;
  /** The final result. */
  result: ToolCallResult;
}

/** How {@linkcode ToolRegistry.execute} runs a call. */
export interface ExecuteOptions {
  /** Aborts the hooks and the tool. */
  signal: AbortSignal;
  /** Hooks around the call. */
  hooks: ToolHooks;
  /** Called once, with the final call, just before the tool runs or the call is refused. */
  onStart: (call: ToolUseBlock) => void;
  /** Called for each progress report of the running tool (never after it returned or an abort). */
  onProgress: (call: ToolUseBlock, partial: ResultPart[]) => void;
}

// The JSON Schema validator (an npm package, with npm's machinery on its first
// load: about 3 MiB of a start) loads with the first tool call.
let validators: typeof import("@cfworker/json-schema") | undefined;

/** A call ready to run, or refused with its error result. */
type Prepared =
  | { call: ToolUseBlock; entry: Entry; refused?: undefined }
  | { call: ToolUseBlock; refused: ToolCallResult };

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
        throw new ToolSourceError(source.name, error);
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

  /**
   * Removes a tool; a call the model makes to it later gets an
   * "is not available" error result.
   *
   * @param name The tool's registered name.
   * @returns Whether it was registered.
   */
  unregister(name: string): boolean {
    const entry = this.#byName.get(name);
    if (!entry) return false;
    this.#byName.delete(name);
    this.#byWireName.delete(entry.wireName);
    return true;
  }

  /** The registered tools, in registration order. */
  tools(): Tool[] {
    return [...this.#byName.values()].map((entry) => entry.tool);
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
   * Runs one call through the hooks and the tool. Never throws: unknown
   * tools, bad arguments, denials, thrown errors (of tools or hooks) and
   * aborts all become error results.
   *
   * @param call The call, with the tool's registered name.
   * @param options Signal, hooks and a start callback.
   * @returns The final call and what the model will see.
   */
  async execute(call: ToolUseBlock, options: ExecuteOptions): Promise<Dispatched> {
    const prepared = await this.#prepare(call, options);
    options.onStart(prepared.call);
    if (prepared.refused) return { call: prepared.call, result: prepared.refused };
    const result = await this.#run(prepared.entry, prepared.call, options);
    return { call: prepared.call, result: await afterHook(prepared, result, options) };
  }

  /** Checks the call and asks the `beforeToolCall` hook. */
  async #prepare(call: ToolUseBlock, options: ExecuteOptions): Promise<Prepared> {
    const entry = this.#byName.get(call.name);
    if (!entry) return { call, refused: errorOutcome(this.#unknownToolMessage(call.name)) };
    validators ??= await import("@cfworker/json-schema");
    const refused = this.#checkModelCall(entry, call);
    if (refused) return { call, refused };
    const hook = options.hooks.beforeToolCall;
    if (!hook || options.signal.aborted) return { call, entry };
    let input: Record<string, unknown>;
    try {
      input = await beforeHook(hook, entry, call, options.signal);
    } catch (error) {
      // An abort is reported by #run, like an abort before any tool started.
      if (options.signal.aborted) return { call, entry };
      const refusal = error instanceof Denied
        ? `${call.name} was denied: ${error.message}`
        : `${call.name} was not run: its beforeToolCall hook failed: ${errorMessage(error)}`;
      return { call, refused: errorOutcome(refusal) };
    }
    if (input === call.input) return { call, entry };
    const changed = { ...call, input };
    // Re-checked so a hook cannot hand the tool arguments its schema rules out.
    const changedRefused = this.#check(
      entry,
      input,
      (problem) =>
        `${problem} (as changed by the beforeToolCall hook), so ${call.name} was not run`,
    );
    return changedRefused ? { call: changed, refused: changedRefused } : { call: changed, entry };
  }

  /** The error result for arguments the model sent broken or off-schema, or null. */
  #checkModelCall(entry: Entry, call: ToolUseBlock): ToolCallResult | null {
    if (call.invalidInput !== undefined) {
      return errorOutcome(
        `The arguments for ${call.name} were not valid JSON (the output may have been cut off): ${
          clip(call.invalidInput)
        }. Send the call again with complete JSON arguments.`,
      );
    }
    return this.#check(
      entry,
      call.input,
      (problem) =>
        `${problem}. Arguments received: ${
          clip(JSON.stringify(call.input))
        }. Fix them to match the tool's schema and call it again.`,
    );
  }

  /** Runs the tool itself; an abort already signalled skips it. */
  async #run(entry: Entry, call: ToolUseBlock, options: ExecuteOptions): Promise<ToolCallResult> {
    const { signal } = options;
    if (signal.aborted) return errorOutcome(`${call.name} was not run: the run was aborted`);
    let running = true;
    const onUpdate = (partial: ResultPart[] | string) => {
      if (!running || signal.aborted) return;
      const parts = typeof partial === "string"
        ? [{ type: "text" as const, text: partial }]
        : partial;
      const shown = progressHook(call, entry.tool.decl, parts, options.hooks);
      if (shown) options.onProgress(call, shown);
    };
    try {
      const output = Promise.resolve(
        entry.tool.execute(call.input, { signal, callId: call.id, onUpdate }),
      );
      return normalise(await untilAborted(output, signal, TOOL_ABORT_GRACE_MS));
    } catch (error) {
      if (signal.aborted) return errorOutcome(`${call.name} was aborted: ${errorMessage(error)}`);
      return errorOutcome(`${call.name} failed: ${errorMessage(error)}`);
    } finally {
      running = false;
    }
  }

  /** An error result when `input` fails the schema (worded by `describe`), else null. */
  #check(
    entry: Entry,
    input: Record<string, unknown>,
    describe: (problem: string) => string,
  ): ToolCallResult | null {
    let problem: string | null;
    try {
      problem = this.#validate(entry, input);
    } catch (error) {
      // A schema the validator cannot apply (e.g. an unresolved $ref) is the tool's fault.
      return errorOutcome(
        `${entry.tool.decl.name} was not run: its input schema could not be applied: ${
          errorMessage(error)
        }`,
      );
    }
    return problem === null ? null : errorOutcome(describe(problem));
  }

  #validate(entry: Entry, input: Record<string, unknown>): string | null {
    if (!validators) throw new Error("internal error: a tool call was checked before #prepare");
    entry.validator ??= new validators.Validator(
      entry.tool.decl.inputSchema as never,
      "2020-12",
      false,
    );
    const result = entry.validator.validate(input);
    if (result.valid) return null;
    const details = result.errors
      .filter((e) => e.keyword !== "properties" && e.keyword !== "$ref")
      .slice(0, 5)
      .map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`);
    return `Invalid arguments for ${entry.tool.decl.name}: ${details.join("; ")}`;
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

/**
 * Settles with `promise`, or rejects `graceMs` after `signal` aborts: a tool
 * that ignores the signal cannot hang the run, and one that stops within the
 * grace keeps its own result (e.g. the output of a killed command).
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, graceMs = 0): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = () => reject(signal.reason ?? new DOMException("Aborted", "AbortError"));
    const onAbort = () => graceMs > 0 ? timer = setTimeout(fail, graceMs) : fail();
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    });
  });
}

/** How long an aborted tool may take to return what it has (bash needs about 0.7 s to kill and drain). */
const TOOL_ABORT_GRACE_MS = 1000;

/** A `deny` decision, carried to the one place that turns refusals into results. */
class Denied extends Error {}

/**
 * Asks the hook; resolves with the input to run with (`call.input` itself
 * when unchanged), rejects with {@linkcode Denied}, the hook's error, or the
 * abort reason.
 */
async function beforeHook(
  hook: BeforeToolCallHook,
  entry: Entry,
  call: ToolUseBlock,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const context = { call: hookCall(call), tool: entry.tool.decl, signal };
  const decision: unknown = await untilAborted(Promise.resolve().then(() => hook(context)), signal);
  if (decision === undefined) return call.input;
  if (isRecord(decision) && decision.action === "deny" && typeof decision.reason === "string") {
    throw new Denied(decision.reason);
  }
  if (isRecord(decision) && decision.action === "allow") {
    if (decision.input === undefined) return call.input;
    if (isRecord(decision.input)) return decision.input;
  }
  throw new Error(
    `it returned ${
      clip(JSON.stringify(decision) ?? String(decision), 200)
    }; return undefined, { action: "allow", input? } or { action: "deny", reason }`,
  );
}

/** A progress report as the `redactProgress` hook lets it out, or `null` when it drops it (or throws). */
function progressHook(
  call: ToolUseBlock,
  tool: ToolDecl,
  partial: ResultPart[],
  hooks: ToolHooks,
): ResultPart[] | null {
  const hook = hooks.redactProgress;
  if (!hook) return partial;
  try {
    const replaced = hook({ call: hookCall(call), tool, partial });
    return replaced === undefined ? partial : Array.isArray(replaced) ? replaced : null;
  } catch {
    return null;
  }
}

/** Lets the `afterToolCall` hook replace the result; its failure or an abort replaces it with an error. */
async function afterHook(
  prepared: { call: ToolUseBlock; entry: Entry },
  result: ToolCallResult,
  options: ExecuteOptions,
): Promise<ToolCallResult> {
  const hook = options.hooks.afterToolCall;
  if (!hook) return result;
  const { call, entry } = prepared;
  const { signal } = options;
  // The hook may exist to redact: once aborted, a result it never saw is not sent on.
  if (signal.aborted) return errorOutcome(`${call.name} was aborted`);
  const context = { call: hookCall(call), tool: entry.tool.decl, result, signal };
  try {
    const replaced: unknown = await untilAborted(
      Promise.resolve().then(() => hook(context)),
      signal,
    );
    if (replaced === undefined) return result;
    if (isRecord(replaced) && Array.isArray(replaced.parts)) {
      return { parts: replaced.parts, isError: replaced.isError === true };
    }
    throw new Error(
      `it returned ${
        clip(JSON.stringify(replaced) ?? String(replaced), 200)
      }; return undefined or { parts, isError }`,
    );
  } catch (error) {
    if (signal.aborted) return errorOutcome(`${call.name} was aborted`);
    return errorOutcome(
      `${call.name} ran, but its afterToolCall hook failed: ${errorMessage(error)}`,
    );
  }
}

/** The call as hooks see it: a copy, so a hook editing it in place changes nothing. */
function hookCall(call: ToolUseBlock): ToolCall {
  return { id: call.id, name: call.name, input: structuredClone(call.input) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function normalise(output: ToolOutput): ToolCallResult {
  if (Array.isArray(output)) return { parts: output, isError: false };
  return { parts: output.parts, isError: output.isError ?? false };
}

function errorOutcome(message: string): ToolCallResult {
  return { parts: [{ type: "text", text: message }], isError: true };
}

function clip(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
