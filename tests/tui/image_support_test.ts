/**
 * Image support is detected by asking the terminal: a fake terminal behind
 * {@linkcode ProcessTerminal} answers (or not) the queries it is written,
 * in order, as a real one does.
 */
import assert from "node:assert/strict";
import { ImageProbe, NO_IMAGES, type TerminalHints } from "../../tui/image_support.ts";
import { ProcessTerminal, type TerminalIo } from "../../tui/process_terminal.ts";

/** What a fake terminal answers to each query it knows (none: silent). */
type Answers = Partial<
  Record<"kitty" | "cellSize" | "iterm2CellSize" | "keyboard" | "da1", string>
>;

const QUERIES: [keyof Answers, string][] = [
  ["kitty", "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"],
  ["cellSize", "\x1b[16t"],
  ["iterm2CellSize", "\x1b]1337;ReportCellSize\x07"],
  ["keyboard", "\x1b[?u"],
  ["da1", "\x1b[c"],
];

/** A terminal that answers the queries in each write, in the order they were written, later. */
function fakeTerminal(answers: Answers) {
  const written: string[] = [];
  const inputs: string[] = [];
  let feed: ((text: string) => void) | undefined;
  const io: TerminalIo = {
    setRaw: () => {},
    size: () => ({ columns: 80, rows: 24 }),
    write: (data) => {
      written.push(data);
      const found = QUERIES.flatMap(([name, query]) => {
        const at = data.indexOf(query);
        return at === -1 ? [] : [{ at, answer: answers[name] ?? "" }];
      });
      const reply = found.sort((a, b) => a.at - b.at).map((f) => f.answer).join("");
      if (reply !== "") queueMicrotask(() => feed?.(reply));
    },
    readInput: (onData) => {
      feed = onData;
      return () => Promise.resolve();
    },
    onSignal: () => () => {},
    onFatalError: () => () => {},
    stopJob: () => false,
    exit: () => {},
  };
  return { io, written, inputs, feed: (text: string) => feed?.(text) };
}

/** Starts a ProcessTerminal on a fake terminal; its image support once known. */
async function detect(
  answers: Answers,
  hints: TerminalHints,
  probe: Partial<ConstructorParameters<typeof ImageProbe>[0]> = {},
) {
  const fake = fakeTerminal(answers);
  const terminal = new ProcessTerminal({
    io: fake.io,
    exitOnSignals: false,
    keyboardFallbackMs: 30_000,
    imageProbe: new ImageProbe({ hints, timeoutMs: 30_000, ...probe }),
  });
  terminal.onInput((sequence) => fake.inputs.push(sequence));
  terminal.start();
  try {
    const support = await terminal.imageSupport();
    return { support, fake, keyboard: terminal.keyboardProtocol };
  } finally {
    terminal.stop();
  }
}

const KITTY: Answers = {
  kitty: "\x1b_Gi=31;OK\x1b\\",
  cellSize: "\x1b[6;20;10t",
  keyboard: "\x1b[?0u",
  da1: "\x1b[?62;22c",
};
const XTERM: Answers = { da1: "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c" };

Deno.test("image support: a terminal that answers the Kitty query OK draws with Kitty", async () => {
  const { support, fake, keyboard } = await detect(KITTY, { TERM: "xterm-kitty" });
  assert.deepEqual(support, {
    protocol: "kitty",
    cellSize: { width: 10, height: 20 },
    tmux: false,
  });
  // The answers are consumed, not typed; the keyboard negotiation still saw its DA1.
  assert.deepEqual(fake.inputs, []);
  assert.equal(keyboard, "kitty");
  // The image queries go before the keyboard negotiator's DA1 query, which ends both.
  const queries = fake.written.join("");
  assert.ok(queries.indexOf("a=q") < queries.indexOf("\x1b[c"));
  assert.equal(queries.split("\x1b[c").length, 2, "one DA1 query");
});

Deno.test("image support: a terminal that answers only DA1 gets placeholders", async () => {
  const { support, fake, keyboard } = await detect(XTERM, { TERM: "xterm-256color" });
  assert.deepEqual(support, NO_IMAGES);
  assert.deepEqual(fake.inputs, []);
  assert.equal(keyboard, "modifyOtherKeys");
});

Deno.test("image support: a Kitty error answer is not support", async () => {
  const { support } = await detect(
    { ...KITTY, kitty: "\x1b_Gi=31;EINVAL:unsupported\x1b\\" },
    { TERM: "xterm-256color" },
  );
  assert.equal(support.protocol, null);
});

Deno.test("image support: iTerm2 named by TERM_PROGRAM or LC_TERMINAL, sized by ReportCellSize", async () => {
  const iterm: Answers = {
    iterm2CellSize: "\x1b]1337;ReportCellSize=17.0;8.0;2.0\x1b\\",
    da1: "\x1b[?62;4c",
  };
  for (const hints of [{ TERM_PROGRAM: "iTerm.app" }, { LC_TERMINAL: "iTerm2" }]) {
    const { support, fake } = await detect(iterm, { TERM: "xterm-256color", ...hints });
    assert.deepEqual(support, {
      protocol: "iterm2",
      cellSize: { width: 16, height: 34 },
      tmux: false,
    });
    assert.deepEqual(fake.inputs, []);
  }
  // Not named iTerm2: not asked, not assumed.
  const { support, fake } = await detect(iterm, { TERM: "xterm-256color" });
  assert.equal(support.protocol, null);
  assert.ok(!fake.written.join("").includes("1337"));
});

Deno.test("image support: a terminal that never answers gets placeholders after the timeout", async () => {
  const { support } = await detect({}, { TERM: "xterm" }, { timeoutMs: 200 });
  assert.deepEqual(support, NO_IMAGES);
  // An OK that came without DA1 still counts when the wait ends.
  const late = await detect({ kitty: KITTY.kitty! }, { TERM: "xterm" }, { timeoutMs: 200 });
  assert.equal(late.support.protocol, "kitty");
});

Deno.test("image support: the Linux console and dumb terminals are asked nothing", async () => {
  for (const TERM of ["linux", "dumb", undefined]) {
    const { support, fake } = await detect(KITTY, { TERM });
    assert.deepEqual(support, NO_IMAGES);
    const written = fake.written.join("");
    assert.ok(!written.includes("\x1b_G") && !written.includes("\x1b[16t"), String(TERM));
  }
});

Deno.test("image support: in tmux, images only with passthrough on, never a Kitty query", async () => {
  const tmux = { TERM: "tmux-256color", TMUX: "/tmp/tmux-0/default,1,0", KITTY_WINDOW_ID: "1" };
  const off = await detect(KITTY, tmux, { tmuxPassthrough: () => Promise.resolve(false) });
  assert.deepEqual(off.support, NO_IMAGES);
  assert.ok(!off.fake.written.join("").includes("\x1b_G"));
  const on = await detect(KITTY, tmux, { tmuxPassthrough: () => Promise.resolve(true) });
  assert.deepEqual(on.support, {
    protocol: "kitty",
    cellSize: { width: 10, height: 20 },
    tmux: true,
  });
  const iterm = await detect(
    XTERM,
    { ...tmux, KITTY_WINDOW_ID: undefined, LC_TERMINAL: "iTerm2" },
    {
      tmuxPassthrough: () => Promise.resolve(true),
    },
  );
  assert.deepEqual(iterm.support, { protocol: "iterm2", cellSize: null, tmux: true });
  const unknown = await detect(XTERM, { ...tmux, KITTY_WINDOW_ID: undefined }, {
    tmuxPassthrough: () => Promise.resolve(true),
  });
  assert.deepEqual(unknown.support, NO_IMAGES);
});

Deno.test("image support: an answer that comes after the wait ended is not typed as a key", async () => {
  const fake = fakeTerminal({ da1: XTERM.da1! });
  const terminal = new ProcessTerminal({
    io: fake.io,
    exitOnSignals: false,
    keyboardFallbackMs: 30_000,
    imageProbe: new ImageProbe({ hints: { TERM: "xterm" }, timeoutMs: 30_000 }),
  });
  terminal.onInput((sequence) => fake.inputs.push(sequence));
  terminal.start();
  try {
    assert.deepEqual(await terminal.imageSupport(), NO_IMAGES);
    const late = Promise.withResolvers<void>();
    terminal.onInput(() => late.resolve());
    // The late answer, then a key: only the key reaches the input handlers.
    fake.feed("\x1b_Gi=31;OK\x1b\\\x1b[6;20;10tx");
    await late.promise;
    assert.deepEqual(fake.inputs, ["x"]);
  } finally {
    terminal.stop();
  }
});
