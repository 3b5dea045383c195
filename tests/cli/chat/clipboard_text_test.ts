/**
 * Copying text (`/copy`) as pi does, through fake `xclip`, `xsel` and
 * `wl-copy` scripts: the platform tool first, OSC 52 when none copied or
 * the session is remote, and an error saying why when neither can.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ClipboardError } from "../../../cli/chat/clipboard_image.ts";
import { copyText, MAX_OSC52_LENGTH, osc52 } from "../../../cli/chat/clipboard_text.ts";
import { fakeTool } from "./clipboard_fakes.ts";

/** A directory with fake tools, each saving its input to `<name>.txt` there (or failing). */
async function withTools(
  tools: Record<string, "saves" | "fails">,
  test: (dir: string) => Promise<void>,
): Promise<void> {
  const dirs: string[] = [];
  for (const [name, how] of Object.entries(tools)) {
    dirs.push(await fakeTool(name, how === "saves" ? `cat > "$DIR/${name}.txt"` : "exit 1"));
  }
  try {
    // Every tool in one PATH: each fake lives in its own directory.
    await test(dirs.join(":"));
  } finally {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
}

/** The text a fake tool saved, found in one of the PATH's directories. */
async function saved(path: string, name: string): Promise<string | undefined> {
  for (const dir of path.split(":")) {
    const text = await Deno.readTextFile(join(dir, `${name}.txt`)).catch(() => undefined);
    if (text !== undefined) return text;
  }
  return undefined;
}

Deno.test("copy: xclip takes the text under X11; no OSC 52 is written", async () => {
  await withTools({ xclip: "saves" }, async (path) => {
    const written: string[] = [];
    const copied = await copyText("héllo answer", {
      writeTerminal: (bytes) => void written.push(bytes),
      env: { PATH: path, DISPLAY: ":0" },
      os: "linux",
    });
    assert.deepEqual(copied, { tool: "xclip", terminal: false });
    assert.equal(await saved(path, "xclip"), "héllo answer");
    assert.deepEqual(written, []);
  });
});

Deno.test("copy: a failing xclip falls back to xsel; wl-copy comes first under Wayland", async () => {
  await withTools({ xclip: "fails", xsel: "saves" }, async (path) => {
    const copied = await copyText("via xsel", {
      writeTerminal: () => {},
      env: { PATH: path, DISPLAY: ":0" },
      os: "linux",
    });
    assert.equal(copied.tool, "xsel");
    assert.equal(await saved(path, "xsel"), "via xsel");
  });
  await withTools({ "wl-copy": "saves", xclip: "saves" }, async (path) => {
    const copied = await copyText("via wl-copy", {
      writeTerminal: () => {},
      env: { PATH: path, DISPLAY: ":0", WAYLAND_DISPLAY: "wayland-0" },
      os: "linux",
    });
    assert.equal(copied.tool, "wl-copy");
    assert.equal(await saved(path, "xclip"), undefined, "xclip was not asked");
  });
});

Deno.test("copy: without a display (or a tool), the OSC 52 sequence goes to the terminal", async () => {
  const written: string[] = [];
  const copied = await copyText("answer ✓", {
    writeTerminal: (bytes) => void written.push(bytes),
    env: { PATH: "/nonexistent" },
    os: "linux",
  });
  assert.deepEqual(copied, { tool: undefined, terminal: true });
  assert.deepEqual(written, [`\x1b]52;c;${new TextEncoder().encode("answer ✓").toBase64()}\x07`]);
  assert.equal(written[0], osc52("answer ✓"));
});

Deno.test("copy: over SSH both the tool and OSC 52 (the terminal is on the user's machine)", async () => {
  await withTools({ xclip: "saves" }, async (path) => {
    const written: string[] = [];
    const copied = await copyText("remote", {
      writeTerminal: (bytes) => void written.push(bytes),
      env: { PATH: path, DISPLAY: ":0", SSH_CONNECTION: "10.0.0.1 5 10.0.0.2 22" },
      os: "linux",
    });
    assert.deepEqual(copied, { tool: "xclip", terminal: true });
    assert.deepEqual(written, [osc52("remote")]);
  });
});

Deno.test("copy: too long for OSC 52 and no tool: an error that says both", async () => {
  const written: string[] = [];
  const long = "x".repeat(MAX_OSC52_LENGTH);
  const error = await copyText(long, {
    writeTerminal: (bytes) => void written.push(bytes),
    env: { PATH: "/nonexistent" },
    os: "linux",
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ClipboardError, `a ClipboardError, not ${error}`);
  assert.match(error.message, /No display to copy to.*too long.*OSC 52 takes up to 73\.2 KB/);
  assert.deepEqual(written, []);
});
