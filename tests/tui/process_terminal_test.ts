import assert from "node:assert/strict";
import { ImageProbe } from "../../tui/image_support.ts";
import { ProcessTerminal, type TerminalIo } from "../../tui/process_terminal.ts";
import type { TerminalSignal } from "../../tui/runtime/signals.ts";
import { TUI } from "../../tui/tui.ts";
import { tmuxAvailable, TmuxSession } from "../support/tmux.ts";
import { Lines } from "./test_lines.ts";

if (!tmuxAvailable) {
  console.log("skipped: the ctrl+z test in process_terminal_test needs tmux on PATH");
}

const RESTORE_AFTER_KITTY = "\x1b[?2026l\x1b[<u\x1b[?2004l\x1b[?7h\x1b[?25h";

/** A fake OS side that records every effect in order. */
function fakeIo() {
  const log: string[] = [];
  const signals = new Map<TerminalSignal, () => void>();
  let fatal: (() => void) | undefined;
  let feed: ((text: string) => void) | undefined;
  let size = { columns: 80, rows: 24 };
  let jobControl = true;
  const io: TerminalIo = {
    setRaw: (enabled) => log.push(`raw:${enabled}`),
    size: () => size,
    write: (data) => log.push(`write:${JSON.stringify(data)}`),
    readInput: (onData) => {
      feed = onData;
      log.push("read:start");
      return () => {
        log.push("read:stop");
        return Promise.resolve();
      };
    },
    onSignal: (signal, handler) => {
      signals.set(signal, handler);
      return () => signals.delete(signal);
    },
    onFatalError: (handler) => {
      fatal = handler;
      return () => fatal = undefined;
    },
    stopJob: () => {
      log.push("SIGSTOP");
      return jobControl;
    },
    exit: (code) => log.push(`exit:${code}`),
  };
  return {
    io,
    log,
    signals,
    raise: (signal: TerminalSignal) => signals.get(signal)?.(),
    crash: () => fatal?.(),
    type: (text: string) => feed?.(text),
    resizeTo: (columns: number, rows: number) => size = { columns, rows },
    setJobControl: (available: boolean) => jobControl = available,
  };
}

function started() {
  const fake = fakeIo();
  const terminal = new ProcessTerminal({
    io: fake.io,
    keyboardFallbackMs: 10_000,
    // A terminal that is asked nothing about images (image_support_test asks).
    imageProbe: new ImageProbe({ hints: { TERM: "dumb" } }),
  });
  const inputs: string[] = [];
  const events: string[] = [];
  terminal.onInput((sequence) => inputs.push(sequence));
  terminal.onResize(() => events.push(`resize:${terminal.columns}x${terminal.rows}`));
  terminal.onBeforeRestore(() => fake.log.push("before-restore"));
  terminal.start();
  return { fake, terminal, inputs, events };
}

Deno.test("ProcessTerminal: start enters raw mode, enables paste and negotiates the keyboard", () => {
  const { fake, terminal } = started();
  assert.deepEqual(fake.log, [
    "raw:true",
    `write:${JSON.stringify("\x1b[?2004h")}`,
    `write:${JSON.stringify("\x1b[?u\x1b[c")}`,
    "read:start",
  ]);
  assert.deepEqual([...fake.signals.keys()].sort(), [
    "SIGCONT",
    "SIGHUP",
    "SIGINT",
    "SIGTERM",
    "SIGWINCH",
  ]);
  terminal.stop();
});

Deno.test("ProcessTerminal: input is split, negotiation answers are swallowed", () => {
  const { fake, terminal, inputs } = started();
  fake.type("\x1b[?1u\x1b[?62c");
  assert.equal(terminal.keyboardProtocol, "kitty");
  assert.ok(fake.log.includes(`write:${JSON.stringify("\x1b[>7u")}`));
  fake.type("ab\x1b[1");
  fake.type("3;2u\x1b[200~pasted\x1b[201~");
  assert.deepEqual(inputs, ["a", "b", "\x1b[13;2u", "\x1b[200~pasted\x1b[201~"]);
  terminal.stop();
});

Deno.test("ProcessTerminal: stop restores everything once, after the engine parks its cursor", () => {
  const { fake, terminal } = started();
  fake.type("\x1b[?1u");
  fake.log.length = 0;
  terminal.stop();
  terminal.stop();
  assert.deepEqual(fake.log, [
    "before-restore",
    `write:${JSON.stringify(RESTORE_AFTER_KITTY)}`,
    "raw:false",
    "read:stop",
  ]);
  assert.equal(fake.signals.size, 0, "signal listeners removed");
});

Deno.test("ProcessTerminal: modifyOtherKeys is reset when it was the fallback", () => {
  const { fake, terminal } = started();
  fake.type("\x1b[?62;22c");
  assert.equal(terminal.keyboardProtocol, "modifyOtherKeys");
  fake.log.length = 0;
  terminal.stop();
  assert.ok(
    fake.log.includes(
      `write:${JSON.stringify("\x1b[?2026l\x1b[>4;0m\x1b[?2004l\x1b[?7h\x1b[?25h")}`,
    ),
  );
});

for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129], ["SIGINT", 130]] as const) {
  Deno.test(`ProcessTerminal: ${signal} restores the terminal then exits ${code}`, () => {
    const { fake, terminal } = started();
    fake.type("\x1b[?1u");
    fake.log.length = 0;
    fake.raise(signal);
    assert.deepEqual(fake.log, [
      "before-restore",
      `write:${JSON.stringify(RESTORE_AFTER_KITTY)}`,
      "raw:false",
      `exit:${code}`,
    ]);
    terminal.stop();
  });
}

Deno.test("ProcessTerminal: with exitOnSignals false the app handles the signals", () => {
  const fake = fakeIo();
  const terminal = new ProcessTerminal({ io: fake.io, exitOnSignals: false });
  terminal.start();
  for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
    assert.equal(fake.signals.has(signal), false, `${signal} is left to the app`);
  }
  assert.ok(fake.signals.has("SIGWINCH"));
  terminal.stop();
  assert.ok(fake.log.includes("raw:false"), "stop() still restores");
});

Deno.test("ProcessTerminal: an uncaught error restores the terminal", () => {
  const { fake, terminal } = started();
  fake.log.length = 0;
  fake.crash();
  assert.deepEqual(fake.log, [
    "before-restore",
    `write:${JSON.stringify("\x1b[?2026l\x1b[?2004l\x1b[?7h\x1b[?25h")}`,
    "raw:false",
  ]);
  terminal.stop();
});

Deno.test("ProcessTerminal: suspend restores and stops; SIGCONT re-enters and repaints", () => {
  const { fake, terminal, events } = started();
  fake.type("\x1b[?1u");
  fake.log.length = 0;
  terminal.suspend();
  assert.deepEqual(fake.log, [
    "before-restore",
    `write:${JSON.stringify(RESTORE_AFTER_KITTY)}`,
    "raw:false",
    "SIGSTOP",
  ]);
  fake.log.length = 0;
  fake.resizeTo(100, 30);
  fake.raise("SIGCONT");
  assert.deepEqual(fake.log, [
    "raw:true",
    `write:${JSON.stringify("\x1b[?2004h")}`,
    `write:${JSON.stringify("\x1b[>7u")}`,
  ]);
  assert.deepEqual(events, ["resize:100x30"]);
  terminal.stop();
});

Deno.test("ProcessTerminal: cursorPosition asks DSR 6 and takes the report as its answer", async () => {
  const { fake, terminal, inputs } = started();
  fake.log.length = 0;
  const asked = terminal.cursorPosition();
  assert.deepEqual(fake.log, [`write:${JSON.stringify("\x1b[6n")}`]);
  fake.type("\x1b[12;5R");
  assert.deepEqual(await asked, { row: 11, col: 4 });
  assert.deepEqual(inputs, [], "the report is not a key");
  fake.type("\x1b[1;2R");
  assert.deepEqual(
    inputs,
    ["\x1b[1;2R"],
    "with no question open, the same bytes are a key (shift+F3)",
  );
  terminal.stop();
});

Deno.test("ProcessTerminal: cursorPosition gives up without an answer", async () => {
  const { terminal } = started();
  assert.equal(await terminal.cursorPosition(), null);
  terminal.stop();
});

Deno.test("ProcessTerminal: SIGWINCH refreshes the size", () => {
  const { fake, terminal, events } = started();
  fake.resizeTo(120, 40);
  fake.raise("SIGWINCH");
  assert.deepEqual([terminal.columns, terminal.rows], [120, 40]);
  assert.deepEqual(events, ["resize:120x40"]);
  terminal.stop();
});

Deno.test("ProcessTerminal: refreshSize reports a resize before its SIGWINCH, which then adds nothing", () => {
  const { fake, terminal, events } = started();
  assert.equal(terminal.refreshSize(), false, "no change yet");
  fake.resizeTo(120, 40);
  assert.equal(terminal.refreshSize(), true);
  assert.deepEqual([terminal.columns, terminal.rows], [120, 40]);
  fake.raise("SIGWINCH");
  assert.deepEqual(events, ["resize:120x40"], "the late SIGWINCH for it runs no handler");
  fake.resizeTo(90, 40);
  fake.raise("SIGWINCH");
  fake.raise("SIGWINCH");
  assert.deepEqual(events, ["resize:120x40", "resize:90x40", "resize:90x40"]);
  terminal.stop();
});

Deno.test("ProcessTerminal + TUI: ctrl+z parks the cursor, suspends, and resume repaints the tail", async () => {
  const fake = fakeIo();
  fake.resizeTo(20, 4);
  const terminal = new ProcessTerminal({ io: fake.io, keyboardFallbackMs: 10_000 });
  const tui = new TUI(terminal);
  tui.addChild(new Lines(Array.from({ length: 10 }, (_, i) => `line ${i}`)));
  tui.start();
  tui.renderNow();
  fake.log.length = 0;
  fake.type("\x1a");
  const stopAt = fake.log.indexOf("SIGSTOP");
  assert.ok(stopAt > 0, "suspended");
  assert.ok(fake.log[0]!.includes("\\r\\n"), "the cursor was parked below the content first");
  fake.log.length = 0;
  fake.raise("SIGCONT");
  await new Promise((resolve) => setTimeout(resolve, 30)); // past the frame interval
  const repaint = fake.log.filter((entry) => entry.includes("line ")).join("");
  assert.ok(repaint.includes("line 6") && repaint.includes("line 9"), repaint);
  assert.ok(!repaint.includes("line 5"), "only the visible tail is repainted");
  tui.stop();
});

Deno.test("ProcessTerminal: without job control ctrl+z stops nothing and the terminal stays in use", () => {
  const { fake, terminal } = started();
  fake.setJobControl(false);
  fake.log.length = 0;
  assert.equal(terminal.suspend(), false);
  const stop = fake.log.indexOf("SIGSTOP");
  assert.ok(stop > 0 && fake.log.indexOf("raw:false") < stop, "restored, then asked to stop");
  assert.deepEqual(fake.log.slice(stop + 1, stop + 3), [
    "raw:true",
    `write:${JSON.stringify("\x1b[?2004h")}`,
  ]);
  terminal.stop();
});

Deno.test("ProcessTerminal: a suspend during keyboard negotiation leaves no fallback to fire later", async () => {
  const fake = fakeIo();
  const terminal = new ProcessTerminal({ io: fake.io, keyboardFallbackMs: 20 });
  terminal.start();
  // No answer to the keyboard query yet: the modifyOtherKeys fallback is armed.
  terminal.suspend();
  fake.log.length = 0;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(
    !fake.log.some((entry) => entry.includes("\\u001b[>4;2m")),
    `nothing switched modifyOtherKeys on in the restored terminal: ${fake.log.join(", ")}`,
  );
  terminal.stop();
});

const REPO = new URL("../..", import.meta.url).pathname;

Deno.test({
  name: "ProcessTerminal in tmux: ctrl+z under `deno task` gives the shell its prompt; fg repaints",
  ignore: !tmuxAvailable,
  async fn() {
    const tmux = await TmuxSession.start("bash --norc --noprofile -i", {
      cols: 80,
      rows: 20,
      cwd: REPO,
      env: {
        PS1: "READY$ ",
        HOME: Deno.env.get("HOME") ?? "/root",
        DENO_DIR: Deno.env.get("DENO_DIR") ??
          `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        TERM: "xterm-256color",
      },
    });
    try {
      await tmux.waitFor(/READY\$/);
      await tmux.type("deno task tui-demo --messages=1 --interval=1");
      await tmux.keys("Enter");
      await tmux.waitFor(/panto tui demo/);
      await tmux.waitFor(/done/);
      await tmux.keys("C-z");
      // The whole job stopped (the task runner too), so the shell is back.
      await tmux.waitFor(/Stopped.*deno task tui-demo[\s\S]*READY\$\s*$/, { timeoutMs: 5_000 });
      await tmux.type("fg");
      await tmux.keys("Enter");
      await tmux.waitFor(/fg[\s\S]*done\n>/, { timeoutMs: 5_000 });
      await tmux.type("back again");
      await tmux.keys("Enter");
      await tmux.waitFor(/you: back again/, { timeoutMs: 5_000 });
      await tmux.keys("C-c");
      await tmux.waitFor(/back again[\s\S]*READY\$\s*$/, { timeoutMs: 5_000 });
    } finally {
      await tmux.close();
    }
  },
});
