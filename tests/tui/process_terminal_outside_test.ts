/**
 * ProcessTerminal.runOutside: the terminal lent to another program (an
 * editor) takes none of its keys and comes back in raw mode, reading.
 */
import assert from "node:assert/strict";
import { ProcessTerminal, type TerminalIo } from "../../tui/process_terminal.ts";

Deno.test("ProcessTerminal: runOutside pauses reading after a cursor report, restores, then resumes", async () => {
  const log: string[] = [];
  let feed: (text: string) => void = () => {};
  let beforeRead: (() => Promise<void>) | undefined;
  const io: TerminalIo = {
    setRaw: (enabled) => log.push(`raw:${enabled}`),
    size: () => ({ columns: 80, rows: 24 }),
    write: (data) => {
      if (data.includes("\x1b[6n")) {
        log.push("cursor-query");
        // The terminal answers on the input, which the read waiting takes.
        queueMicrotask(() => feed("\x1b[3;1R"));
      }
    },
    readInput: (onData, gate) => {
      feed = onData;
      beforeRead = gate;
      return () => Promise.resolve();
    },
    onSignal: () => () => {},
    onFatalError: () => () => {},
    stopJob: () => true,
    exit: () => {},
  };
  const terminal = new ProcessTerminal({ io, keyboardFallbackMs: 10_000 });
  const inputs: string[] = [];
  terminal.onInput((sequence) => inputs.push(sequence));
  terminal.start();
  assert.ok(beforeRead, "the reader is given a gate");
  await beforeRead(); // open while the terminal is ours

  const result = await terminal.runOutside(async () => {
    log.push("run");
    let opened = false;
    void beforeRead!().then(() => opened = true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(opened, false, "no read starts while the program runs");
    return 42;
  });
  assert.equal(result, 42);
  await beforeRead(); // open again
  const order = log.filter((entry) =>
    ["cursor-query", "raw:false", "run", "raw:true"].includes(entry)
  );
  assert.deepEqual(order.slice(-4), ["cursor-query", "raw:false", "run", "raw:true"]);
  assert.deepEqual(inputs, [], "the cursor report is not a key");
  terminal.stop();
});
