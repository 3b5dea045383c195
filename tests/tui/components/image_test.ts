/**
 * The image component on the engine, in an emulated terminal (xterm.js):
 * where images are not drawn, a placeholder and no escape garbage; where
 * they are, the image takes its rows, is placed on the first of them once,
 * moves (deleted, then placed again) when the lines above change, hides
 * under an overlay, is placed again after a resize, and scrolls into history
 * without leaving anything behind.
 *
 * xterm.js ignores both image protocols, so this test's terminal turns each
 * Kitty command into an OSC 7777 note and reads iTerm2's OSC 1337: each
 * records the row the cursor was on when the terminal got it.
 */
import assert from "node:assert/strict";
import { Image, type ImageOptions } from "../../../tui/components/image.ts";
import type { ImageSupport } from "../../../tui/image_support.ts";
import { NO_IMAGES } from "../../../tui/image_support.ts";
import { createTheme } from "../../../tui/theme.ts";
import { TUI } from "../../../tui/tui.ts";
import jpeg from "jpeg-js";
import { craftPng } from "../../support/crafted_png.ts";
import { VirtualTerminal } from "../../support/virtual_terminal.ts";
import { frame, Lines } from "../test_lines.ts";

/** A 1280×720 PNG, base64. */
const SCREENSHOT = await (async () => {
  const bytes = await craftPng({ width: 1280, height: 720, depth: 1, colorType: 0 });
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
})();

const CELL = { width: 10, height: 20 };
const KITTY: ImageSupport = { protocol: "kitty", cellSize: CELL, tmux: false };
const ITERM2: ImageSupport = { protocol: "iterm2", cellSize: CELL, tmux: false };

/** A drawn image, as the terminal got it. */
interface Drawn {
  what: "place" | "delete" | "iterm2";
  /** Buffer row (scrollback included) of the cursor. */
  row: number;
  /** Kitty id, or the iTerm2 box. */
  detail: string;
}

/** A terminal that notes where each image command arrives. */
class ImageTerminal extends VirtualTerminal {
  readonly drawn: Drawn[] = [];

  constructor(columns: number, rows: number) {
    super(columns, rows);
    this.onOsc(7777, (data, row) => {
      const [what, detail] = data.split(":") as [Drawn["what"], string];
      this.drawn.push({ what, row, detail });
    });
    this.onOsc(1337, (data, row) => {
      const box = /width=(\d+);height=(\d+)/.exec(data);
      this.drawn.push({ what: "iterm2", row, detail: `${box?.[1]}x${box?.[2]}` });
    });
  }

  override write(data: string): void {
    // deno-lint-ignore no-control-regex
    super.write(data.replace(/\x1b_G([^;\x1b]*)(?:;[^\x1b]*)?\x1b\\/g, (_, keys: string) => {
      const id = /\bi=(\d+)/.exec(keys)?.[1] ?? "";
      if (keys.startsWith("a=T")) return `\x1b]7777;place:${id}\x07`;
      if (keys.startsWith("a=d")) return `\x1b]7777;delete:${id}\x07`;
      return "";
    }));
  }

  /** The notes since the last call. */
  take(): Drawn[] {
    return this.drawn.splice(0);
  }
}

/** An engine on `terminal`, stopped and disposed with the test's scope. */
function onScreen<T extends VirtualTerminal>(terminal: T) {
  const tui = new TUI(terminal);
  return {
    terminal,
    tui,
    async [Symbol.asyncDispose]() {
      tui.stop();
      await terminal.flush();
      terminal.dispose();
    },
  };
}

function image(support: ImageSupport, options: ImageOptions = {}): Image {
  return new Image({ data: SCREENSHOT, mediaType: "image/png" }, {
    support: () => support,
    name: "screenshot.png",
    theme: createTheme({ noColor: true }),
    ...options,
  });
}

/** Every visible character is text a person could read: no escape sequence shows. */
function assertNoGarbage(lines: readonly string[]): void {
  for (const line of lines) {
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(line, /[\x00-\x1f\x7f]|_G|1337|File=|a=T|Ptmux|\[\d+[AB]/, line);
  }
}

Deno.test("image: without support, a one-line placeholder and no image sequence at all", async () => {
  await using screen = onScreen(new VirtualTerminal(50, 8));
  const { terminal, tui } = screen;
  tui.addChild(new Lines(["before"]));
  tui.addChild(image(NO_IMAGES));
  tui.addChild(new Lines(["after"]));
  tui.start();
  await frame(tui, terminal);
  assert.deepEqual(terminal.screenLines().slice(0, 3), [
    "before",
    "[image: screenshot.png 1280x720 PNG]",
    "after",
  ]);
  const written = terminal.writes.join("");
  // deno-lint-ignore no-control-regex
  assert.ok(!/\x1b_G|\x1b\]1337|\x1bP/.test(written), "no image sequence written");
  assertNoGarbage(terminal.allLines());
});

for (const [name, support] of [["Kitty", KITTY], ["iTerm2", ITERM2]] as const) {
  Deno.test(`image (${name}): placed once on its first row; the rows below follow it`, async () => {
    await using screen = onScreen(new ImageTerminal(50, 16));
    const { terminal, tui } = screen;
    const transcript = new Lines(["before"]);
    tui.addChild(transcript);
    // 1280×720 in 10×20 px cells, at most 40 columns: 40×12.
    tui.addChild(image(support, { maxColumns: 40, maxRows: 12 }));
    const after = new Lines(["after"]);
    tui.addChild(after);
    tui.start();
    await frame(tui, terminal);
    const placed = terminal.take();
    assert.equal(placed.length, 1);
    assert.equal(placed[0]!.what, name === "Kitty" ? "place" : "iterm2");
    assert.equal(placed[0]!.row, 1, "on the row below 'before'");
    if (name === "iTerm2") assert.equal(placed[0]!.detail, "40x12");
    assert.equal(terminal.screenLines()[13], "after", "12 rows below the image's first");
    assertNoGarbage(terminal.allLines());

    // Lines appended below: nothing is drawn again.
    after.append("more", "and more");
    await frame(tui, terminal);
    assert.deepEqual(terminal.take(), []);
  });

  Deno.test(`image (${name}): a change above moves it: removed, then placed where it went`, async () => {
    await using screen = onScreen(new ImageTerminal(50, 20));
    const { terminal, tui } = screen;
    const above = new Lines(["one"]);
    tui.addChild(above);
    tui.addChild(image(support, { maxColumns: 40, maxRows: 6 }));
    tui.addChild(new Lines(["after"]));
    tui.start();
    await frame(tui, terminal);
    terminal.take();
    above.set(["one", "two", "three"]);
    await frame(tui, terminal);
    const drawn = terminal.take();
    if (name === "Kitty") {
      assert.deepEqual(drawn.map((d) => [d.what, d.row]), [["delete", drawn[0]!.row], [
        "place",
        3,
      ]]);
      assert.equal(drawn[0]!.detail, drawn[1]!.detail, "the same image id");
    } else {
      assert.deepEqual(drawn.map((d) => [d.what, d.row]), [["iterm2", 3]]);
    }
    assert.deepEqual(terminal.screenLines().slice(0, 3), ["one", "two", "three"]);
    assert.equal(terminal.screenLines()[9], "after");
    assertNoGarbage(terminal.allLines());
  });

  Deno.test(`image (${name}): hidden under an overlay, placed again when it closes`, async () => {
    await using screen = onScreen(new ImageTerminal(50, 20));
    const { terminal, tui } = screen;
    tui.addChild(new Lines(["top"]));
    tui.addChild(image(support, { maxColumns: 40, maxRows: 6 }));
    tui.addChild(new Lines(["after"]));
    tui.start();
    await frame(tui, terminal);
    terminal.take();
    const overlay = tui.showOverlay(new Lines(["an overlay"]), {
      anchor: "top-left",
      margin: { top: 2 },
    });
    await frame(tui, terminal);
    const hidden = terminal.take();
    if (name === "Kitty") assert.deepEqual(hidden.map((d) => d.what), ["delete"]);
    else assert.deepEqual(hidden, []);
    // iTerm2's image is cells: its rows were cleared, the overlay drawn on them.
    assert.equal(terminal.screenLines()[2]!.trim(), "an overlay");
    overlay.close();
    await frame(tui, terminal);
    assert.deepEqual(terminal.take().map((d) => [d.what, d.row]), [
      [name === "Kitty" ? "place" : "iterm2", 1],
    ]);
    assertNoGarbage(terminal.allLines());
  });

  Deno.test(`image (${name}): a resize places it again, sized for the new width`, async () => {
    await using screen = onScreen(new ImageTerminal(60, 20));
    const { terminal, tui } = screen;
    tui.addChild(new Lines(["top"]));
    tui.addChild(image(support, { maxColumns: 60, maxRows: 12 }));
    tui.addChild(new Lines(["after"]));
    tui.start();
    await frame(tui, terminal);
    terminal.take();
    terminal.resize(30, 20);
    await terminal.flush();
    await frame(tui, terminal);
    const drawn = terminal.take();
    const placements = drawn.filter((d) => d.what !== "delete");
    assert.equal(placements.length, 1);
    assert.equal(placements[0]!.row, 1);
    if (name === "Kitty") assert.equal(drawn[0]!.what, "delete");
    else assert.equal(placements[0]!.detail, "30x9");
    // 1280×720 at 30 columns of 10 px: 300×169 px, 9 rows of 20 px.
    assert.equal(terminal.screenLines()[10], "after");
    assertNoGarbage(terminal.allLines());
  });

  Deno.test(`image (${name}): scrolled into history, nothing is left on screen or drawn again`, async () => {
    await using screen = onScreen(new ImageTerminal(50, 10));
    const { terminal, tui } = screen;
    tui.addChild(new Lines(["top"]));
    tui.addChild(image(support, { maxColumns: 40, maxRows: 6 }));
    const tail = new Lines(["after"]);
    tui.addChild(tail);
    tui.start();
    await frame(tui, terminal);
    terminal.take();
    for (let i = 0; i < 30; i++) {
      tail.append(`line ${i}`);
      await frame(tui, terminal);
    }
    assert.deepEqual(terminal.take(), []);
    assert.deepEqual(
      terminal.screenLines(),
      Array.from({ length: 10 }, (_, i) => `line ${20 + i}`),
    );
    assertNoGarbage(terminal.allLines());
  });
}

Deno.test("image: an image row whose first rows are in history is not drawn over other rows", async () => {
  await using screen = onScreen(new ImageTerminal(50, 6));
  const { terminal, tui } = screen;
  const top = new Lines(["top"]);
  tui.addChild(top);
  tui.addChild(image(KITTY, { maxColumns: 40, maxRows: 4 }));
  tui.addChild(new Lines(["a", "b", "c", "d"]));
  tui.start();
  await frame(tui, terminal);
  // The image's rows scrolled up to history but its last row; then the width changes.
  terminal.take();
  const repaints = tui.stats.screenRepaints;
  terminal.resize(40, 6);
  await frame(tui, terminal);
  assert.equal(tui.stats.screenRepaints, repaints + 1, "every row on screen was written again");
  const placements = terminal.take().filter((d) => d.what === "place");
  assert.deepEqual(placements, []);
  assertNoGarbage(terminal.allLines());
});

Deno.test("image (Kitty): a JPEG is its placeholder until converted to PNG, then drawn", async () => {
  const pixels = { width: 64, height: 32, data: new Uint8Array(64 * 32 * 4).fill(200) };
  const jpegData = new Uint8Array(jpeg.encode(pixels, 80).data).toBase64();
  const changed = Promise.withResolvers<void>();
  const photo = new Image({ data: jpegData, mediaType: "image/jpeg" }, {
    support: () => KITTY,
    name: "photo.jpg",
    theme: createTheme({ noColor: true }),
    onChange: () => changed.resolve(),
  });
  assert.deepEqual(photo.render(80), ["[image: photo.jpg 64x32 JPG]"]);
  await changed.promise;
  const lines = photo.render(80);
  // 64×32 px in 10×20 px cells: 7×2.
  assert.deepEqual(lines.slice(0, -1), [""]);
  // deno-lint-ignore no-control-regex
  const payload = /\x1b_Ga=T,f=100,q=2,C=1,i=\d+,c=7,r=2;([^\x1b]+)\x1b\\/.exec(lines.at(-1)!)?.[1];
  const png = Uint8Array.fromBase64(payload ?? "");
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
  const size = new DataView(png.buffer, png.byteOffset + 16, 8);
  assert.deepEqual([size.getUint32(0), size.getUint32(4)], [64, 32]);
});

Deno.test("image: a GIF is a placeholder for Kitty (PNG only); iTerm2 draws it as it is", () => {
  const gif = btoa(
    "GIF89a\x02\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x02\x00\x01\x00\x00\x02\x02D\x01\x00;",
  );
  const kitty = new Image({ data: gif, mediaType: "image/gif" }, {
    support: () => KITTY,
    theme: createTheme({ noColor: true }),
  });
  assert.deepEqual(kitty.render(80), ["[image: 2x1 GIF]"]);
  const iterm = new Image({ data: gif, mediaType: "image/gif" }, { support: () => ITERM2 });
  // deno-lint-ignore no-control-regex
  assert.match(iterm.render(80).at(-1)!, /\x1b\]1337;File=inline=1;size=\d+;width=1;height=1;/);
});

Deno.test("image (Kitty): lent to another program (ctrl+g), removed, then placed again", async () => {
  const terminal = new ImageTerminal(50, 20);
  // As the process terminal does: restore (the engine parks its cursor, flushing), run, take back.
  const runOutside = async <T>(run: () => Promise<T>) => {
    terminal.stop();
    try {
      return await run();
    } finally {
      terminal.start();
    }
  };
  await using screen = onScreen(Object.assign(terminal, { runOutside }));
  const { tui } = screen;
  tui.addChild(new Lines(["top"]));
  tui.addChild(image(KITTY, { maxColumns: 40, maxRows: 6 }));
  tui.start();
  await frame(tui, terminal);
  terminal.take();
  await tui.runOutside(async () => {
    await terminal.flush();
    // While the editor has the screen, our image is gone from it.
    assert.deepEqual(terminal.take().map((d) => d.what), ["delete"]);
  });
  await frame(tui, terminal);
  assert.deepEqual(terminal.take().map((d) => [d.what, d.row]), [["place", 1]]);
});
