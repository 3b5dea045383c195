/**
 * Engine demo: text streams into a growing transcript above a spinner and
 * an input line. Type and press enter to add a line to the transcript;
 * ctrl+c exits (ctrl+z suspends). Scroll up in your terminal: earlier
 * messages stay in its scrollback.
 *
 * Run: `deno task tui-demo` (options: `--interval=MS` between streamed
 * words, default 30; `--messages=N` to stop streaming after N messages).
 *
 * @module
 */
import { type Component, CURSOR_MARKER } from "../component.ts";
import { Container } from "../container.ts";
import { pastedText } from "../input_splitter.ts";
import { matchesKey, parseKey } from "../keys.ts";
import { ProcessTerminal } from "../process_terminal.ts";
import { truncateToWidth, visibleWidth } from "../text_width.ts";
import { TUI } from "../tui.ts";

const WORDS = ("the renderer keeps the previous frame and writes only what changed so a streamed " +
  "token rewrites one line while everything that scrolled away stays in the terminal scrollback " +
  "wide text like 漢字 and emoji 👍🏽 🇯🇵 👨‍👩‍👧 is measured by grapheme").split(" ");
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Greedy word wrap of plain text (the demo's text has no escapes). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (visibleWidth(candidate) <= width) line = candidate;
    else {
      if (line !== "") lines.push(line);
      line = truncateToWidth(word, width);
    }
  }
  lines.push(line);
  return lines;
}

/** A block of text that grows; only its last wrapped line is dirty after an append. */
class StreamingText implements Component {
  #text: string;
  #lines: string[] = [];
  #width = -1;
  #dirtyFrom: number | null = 0;

  constructor(text = "") {
    this.#text = text;
  }

  append(words: string): void {
    this.#text = this.#text === "" ? words : `${this.#text} ${words}`;
    const lastLine = Math.max(0, this.#lines.length - 1);
    this.#dirtyFrom = Math.min(this.#dirtyFrom ?? lastLine, lastLine);
  }

  render(width: number): readonly string[] {
    if (this.#dirtyFrom !== null || width !== this.#width) {
      this.#lines = wrap(this.#text, width);
      this.#width = width;
      this.#dirtyFrom = null;
    }
    return this.#lines;
  }

  firstLineChanged(): number | null {
    return this.#dirtyFrom;
  }

  invalidate(): void {
    this.#dirtyFrom = 0;
  }
}

/** One status line with a spinner. */
class Spinner implements Component {
  #frame = 0;
  #dirty = true;
  label = "streaming";

  tick(): void {
    this.#frame = (this.#frame + 1) % SPINNER.length;
    this.#dirty = true;
  }

  render(width: number): readonly string[] {
    this.#dirty = false;
    return [
      truncateToWidth(`\x1b[36m${SPINNER[this.#frame]}\x1b[0m \x1b[2m${this.label}\x1b[0m`, width),
    ];
  }

  firstLineChanged(): number | null {
    return this.#dirty ? 0 : null;
  }

  invalidate(): void {
    this.#dirty = true;
  }
}

/** A one-line input with a reverse-video cursor and the IME cursor marker. */
class InputLine implements Component {
  focused = false;
  /** The text as code points, so the cursor never splits a surrogate pair. */
  #chars: string[] = [];
  #cursor = 0;
  #dirty = true;

  constructor(readonly onSubmit: (text: string) => void) {}

  handleInput(data: string): void {
    const paste = pastedText(data);
    const text = paste === null ? parseKey(data)?.text : paste.replaceAll(/\s+/g, " ");
    if (matchesKey(data, "enter")) {
      const line = this.#chars.join("");
      this.#chars = [];
      this.#cursor = 0;
      if (line.trim() !== "") this.onSubmit(line);
    } else if (matchesKey(data, "backspace") && this.#cursor > 0) {
      this.#chars.splice(--this.#cursor, 1);
    } else if (matchesKey(data, "left")) {
      this.#cursor = Math.max(0, this.#cursor - 1);
    } else if (matchesKey(data, "right")) {
      this.#cursor = Math.min(this.#chars.length, this.#cursor + 1);
    } else if (text !== undefined) {
      const inserted = [...text];
      this.#chars.splice(this.#cursor, 0, ...inserted);
      this.#cursor += inserted.length;
    } else return;
    this.#dirty = true;
  }

  render(width: number): readonly string[] {
    this.#dirty = false;
    const before = this.#chars.slice(0, this.#cursor).join("");
    const under = this.#chars[this.#cursor] ?? " ";
    const after = this.#chars.slice(this.#cursor + 1).join("");
    const marker = this.focused ? CURSOR_MARKER : "";
    return [
      truncateToWidth(`\x1b[1m>\x1b[0m ${before}${marker}\x1b[7m${under}\x1b[0m${after}`, width),
    ];
  }

  firstLineChanged(): number | null {
    return this.#dirty ? 0 : null;
  }

  invalidate(): void {
    this.#dirty = true;
  }
}

function numberOption(name: string, fallback: number): number {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  const value = arg === undefined ? fallback : Number(arg.slice(name.length + 3));
  if (Number.isNaN(value) || value < 0) {
    throw new Error(`--${name} must be a non-negative number, got "${arg}"`);
  }
  return value;
}

function main(): void {
  const intervalMs = numberOption("interval", 30);
  const maxMessages = numberOption("messages", Infinity);
  const terminal = new ProcessTerminal();
  const tui = new TUI(terminal);
  const transcript = new Container();
  const spinner = new Spinner();
  const input = new InputLine((text) => {
    transcript.addChild(new StreamingText(`you: ${text}`));
    tui.requestRender();
  });
  tui.addChild(new StreamingText("panto tui demo: type and press enter, ctrl+c to quit"));
  tui.addChild(transcript);
  tui.addChild(spinner);
  tui.addChild(input);
  tui.setFocus(input);

  let messageNumber = 0;
  let wordIndex = 0;
  let current: StreamingText | null = null;
  const stream = setInterval(() => {
    if (current === null || wordIndex >= 60) {
      if (messageNumber >= maxMessages) {
        spinner.label = "done";
        return;
      }
      messageNumber++;
      wordIndex = 0;
      transcript.addChild(new StreamingText(`── message ${messageNumber} ──`));
      current = new StreamingText();
      transcript.addChild(current);
    }
    current.append(WORDS[wordIndex++ % WORDS.length]!);
    tui.requestRender();
  }, intervalMs);
  const spin = setInterval(() => {
    spinner.tick();
    tui.requestRender();
  }, 80);

  tui.onInput((data) => {
    if (!matchesKey(data, "ctrl+c")) return false;
    clearInterval(stream);
    clearInterval(spin);
    tui.stop();
    Deno.exit(0);
  });
  tui.start();
}

main();
