/**
 * Reading an image from the clipboard through fake `xclip`, `wl-paste` and
 * `osascript` scripts: the image, the notices for a missing tool, a text
 * clipboard, no display, a slow tool and a too large image, and the tool's
 * environment without keys.
 */
import assert from "node:assert/strict";
import {
  ClipboardError,
  readClipboardImage,
  sniffImageType,
} from "../../../cli/chat/clipboard_image.ts";
import { fakeTool, TINY_PNG, XCLIP_WITH_PNG } from "./clipboard_fakes.ts";

async function withTool(
  name: string,
  body: string,
  test: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await fakeTool(name, body);
  try {
    await test(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("clipboard: xclip's PNG is read and sniffed", async () => {
  await withTool("xclip", XCLIP_WITH_PNG, async (dir) => {
    const image = await readClipboardImage({ env: { PATH: dir, DISPLAY: ":0" }, os: "linux" });
    assert.equal(image.block.mediaType, "image/png");
    assert.equal(image.block.data, TINY_PNG.toBase64());
    assert.equal(image.bytes, TINY_PNG.length);
  });
});

Deno.test("clipboard: wl-paste is asked for the image type it offers", async () => {
  const body = `case "$*" in *--list-types*) printf 'text/plain\\nimage/jpeg\\n'; exit 0;; esac
[ "$*" = "--no-newline --type image/jpeg" ] || exit 3
printf '\\377\\330\\377\\340JFIF'`;
  await withTool("wl-paste", body, async (dir) => {
    const image = await readClipboardImage({
      env: { PATH: dir, WAYLAND_DISPLAY: "w" },
      os: "linux",
    });
    assert.equal(image.block.mediaType, "image/jpeg");
    assert.equal(image.bytes, 8);
  });
});

Deno.test("clipboard: under Wayland without wl-paste, xclip (XWayland) is used", async () => {
  await withTool("xclip", XCLIP_WITH_PNG, async (dir) => {
    const env = { PATH: dir, WAYLAND_DISPLAY: "w", DISPLAY: ":0" };
    const image = await readClipboardImage({ env, os: "linux" });
    assert.equal(image.block.data, TINY_PNG.toBase64());
  });
});

Deno.test("clipboard: no tool on PATH names the tools to install", async () => {
  const empty = await Deno.makeTempDir();
  try {
    const env = { PATH: empty, WAYLAND_DISPLAY: "w", DISPLAY: ":0" };
    await assert.rejects(
      () => readClipboardImage({ env, os: "linux" }),
      (error: Error) =>
        error instanceof ClipboardError && /needs wl-paste or xclip on PATH/.test(error.message) &&
        /wl-clipboard/.test(error.message),
    );
  } finally {
    await Deno.remove(empty);
  }
});

Deno.test("clipboard: a clipboard holding text, or failing, holds no image", async () => {
  const textOnly = `case "$*" in *TARGETS*) printf 'TARGETS\\nUTF8_STRING\\n'; exit 0;; esac
echo some text`;
  for (const body of [textOnly, "echo 'Error: target TARGETS not available' >&2; exit 1"]) {
    await withTool("xclip", body, async (dir) => {
      await assert.rejects(
        () => readClipboardImage({ env: { PATH: dir, DISPLAY: ":0" }, os: "linux" }),
        /The clipboard holds no image/,
      );
    });
  }
});

Deno.test("clipboard: without a display it says neither variable is set", async () => {
  await assert.rejects(
    () => readClipboardImage({ env: { PATH: "/usr/bin" }, os: "linux" }),
    /neither WAYLAND_DISPLAY nor DISPLAY is set/,
  );
});

Deno.test("clipboard: a tool that hangs is stopped after the timeout", async () => {
  await withTool("xclip", "exec sleep 300", async (dir) => {
    const started = Date.now();
    await assert.rejects(
      () =>
        readClipboardImage({
          env: { PATH: `${dir}:/usr/bin:/bin`, DISPLAY: ":0" },
          os: "linux",
          timeoutMs: 200,
        }),
      /xclip did not answer within 0.2 s/,
    );
    // Generous for a busy machine, and long before the sleep would end.
    assert.ok(Date.now() - started < 60_000, "stopped well before the sleep ends");
  });
});

Deno.test("clipboard: an image over the limit is refused without reading it all", async () => {
  const body = `case "$*" in *TARGETS*) printf 'image/png\\n'; exit 0;; esac
exec head -c 12000000 /dev/zero`;
  await withTool("xclip", body, async (dir) => {
    await assert.rejects(
      () =>
        readClipboardImage({ env: { PATH: `${dir}:/usr/bin:/bin`, DISPLAY: ":0" }, os: "linux" }),
      /The clipboard image is over 10\.0 MB/,
    );
  });
});

Deno.test("clipboard: on macOS osascript's «data PNGf…» is decoded", async () => {
  const body = `printf '«data PNGf%s»\\n' "${TINY_PNG.toHex().toUpperCase()}"`;
  await withTool("osascript", body, async (dir) => {
    const image = await readClipboardImage({ env: { PATH: dir }, os: "darwin" });
    assert.equal(image.block.data, TINY_PNG.toBase64());
  });
});

Deno.test("clipboard: the tool gets the environment given, nothing of panto's", async () => {
  // HOME is set in this process; the tool must not see it (nor any key panto holds).
  const body = `[ -z "$HOME" ] || exit 9
${XCLIP_WITH_PNG}`;
  assert.ok(Deno.env.get("HOME"), "this test needs HOME set in its own environment");
  await withTool("xclip", body, async (dir) => {
    const image = await readClipboardImage({ env: { PATH: dir, DISPLAY: ":0" }, os: "linux" });
    assert.equal(image.block.mediaType, "image/png");
  });
});

Deno.test("clipboard: by default the tool inherits the user's environment, less the withheld variables", async () => {
  const body = `[ -z "$OTHER_FAKE_KEY" ] || exit 9
[ "$SSH_AUTH_SOCK" = /tmp/agent.sock ] || exit 8
${XCLIP_WITH_PNG}`;
  await withTool("xclip", body, async (dir) => {
    const runner = new URL("./clipboard_runner.ts", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", runner, "OTHER_FAKE_KEY"],
      env: { PATH: dir, DISPLAY: ":0", OTHER_FAKE_KEY: "secret", SSH_AUTH_SOCK: "/tmp/agent.sock" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    assert.equal(output.code, 0, decoder.decode(output.stderr));
    assert.equal(decoder.decode(output.stdout).trim(), "image/png");
  });
});

Deno.test("clipboard: image types are sniffed from their signatures", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  assert.equal(sniffImageType(TINY_PNG), "image/png");
  assert.equal(sniffImageType(bytes("GIF89a....")), "image/gif");
  assert.equal(sniffImageType(bytes("RIFF\0\0\0\0WEBPVP8 ")), "image/webp");
  assert.equal(sniffImageType(bytes("RIFF\0\0\0\0WAVEfmt ")), undefined);
  assert.equal(sniffImageType(new Uint8Array()), undefined);
});
