/**
 * End-to-end: the demo in a real pty (tmux). Streams past the screen,
 * checks the terminal's own scrollback keeps the earlier messages intact,
 * types into the input line, quits with ctrl+c and checks the tty modes
 * were restored (the pane runs `sh`, which does not reset the tty itself).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DEMO = fileURLToPath(new URL("../../tui/examples/demo.ts", import.meta.url));

async function tmuxAvailable(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("tmux", {
      args: ["-V"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return success;
  } catch {
    return false;
  }
}

const available = await tmuxAvailable();
if (!available) console.log("skipped: tmux_demo_test needs tmux on PATH (apt-get install -y tmux)");

async function tmux(socket: string, ...args: string[]): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("tmux", {
    args: ["-L", socket, ...args],
  })
    .output();
  const decoder = new TextDecoder();
  if (!success) throw new Error(`tmux ${args.join(" ")} failed: ${decoder.decode(stderr)}`);
  return decoder.decode(stdout);
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * The pane's command: the demo, then (in `sh`, which does not reset the
 * tty) record its exit status and tty modes, then read three bytes of input
 * so a paste can reveal whether bracketed paste mode was left on.
 */
function paneScript(demoArgs: string, sttyFile: string, pasteFile: string): string {
  const demo = `'${Deno.execPath()}' run --allow-run '${DEMO}' ${demoArgs}`;
  return `sh -c "${demo}; echo exit=\\$? > '${sttyFile}'; stty -a >> '${sttyFile}'; ` +
    `dd bs=1 count=3 of='${pasteFile}' 2>/dev/null; sleep 60"`;
}

/** Pastes "xyz" into the pane and returns the bytes the shell's reader got. */
async function pasteProbe(socket: string, pasteFile: string): Promise<string> {
  await tmux(socket, "set-buffer", "-b", "probe", "xyz");
  await tmux(socket, "paste-buffer", "-p", "-b", "probe", "-t", "0");
  await tmux(socket, "send-keys", "-t", "0", "Enter");
  return await waitFor("the pasted bytes", async () => {
    const text = await Deno.readTextFile(pasteFile).catch(() => "");
    return text.length >= 3 ? text : undefined;
  });
}

/** History and screen of the pane, one entry per row, trailing blanks trimmed. */
async function capture(socket: string): Promise<string[]> {
  return (await tmux(socket, "capture-pane", "-p", "-S", "-")).split("\n").map((line) =>
    line.trimEnd()
  );
}

Deno.test({
  name: "tmux: demo streams into scrollback, takes input and restores the tty on ctrl+c",
  ignore: !available,
  async fn() {
    const socket = `panto-test-${crypto.randomUUID().slice(0, 8)}`;
    const sttyFile = await Deno.makeTempFile({ prefix: "panto-stty-" });
    const pasteFile = await Deno.makeTempFile({ prefix: "panto-paste-" });
    const script = paneScript("--interval=4 --messages=6", sttyFile, pasteFile);
    try {
      await tmux(socket, "new-session", "-d", "-c", ROOT, "-x", "80", "-y", "24", script);
      // Wait until all six messages streamed (about 40 rows, more than the 24 on screen).
      await waitFor("the demo to finish streaming", async () => {
        const lines = await capture(socket);
        return lines.some((line) => line.includes("done")) ? lines : undefined;
      });
      const history = Number((await tmux(socket, "display", "-p", "#{history_size}")).trim());
      assert.ok(history > 0, "content scrolled into tmux's scrollback");

      const lines = await capture(socket);
      assert.equal(lines[0], "panto tui demo: type and press enter, ctrl+c to quit");
      const headers = lines.flatMap((line, i) => line.startsWith("── message ") ? [i] : []);
      assert.deepEqual(
        headers.map((i) => lines[i]),
        [1, 2, 3, 4, 5, 6].map((n) => `── message ${n} ──`),
        "each message header once, in order",
      );
      assert.ok(headers[0]! < history, "message 1 is in the scrollback");
      // Every message streamed the same words; scrolled-away ones must be intact.
      const bodies = headers.map((start, k) =>
        lines.slice(start + 1, headers[k + 1] ?? lines.findIndex((l) => l.includes("done"))).join(
          " ",
        )
      );
      for (const body of bodies) assert.equal(body, bodies.at(-1));
      assert.equal(bodies[0]!.split(" ").length, 60);

      await tmux(socket, "send-keys", "-t", "0", "-l", "hello 世界");
      await tmux(socket, "send-keys", "-t", "0", "Enter");
      await waitFor("the typed line in the transcript", async () => {
        return (await capture(socket)).includes("you: hello 世界") ? true : undefined;
      });

      await tmux(socket, "send-keys", "-t", "0", "C-c");
      const stty = await waitFor("stty output after the demo exited", async () => {
        const text = await Deno.readTextFile(sttyFile);
        return text.includes("icanon") ? text : undefined;
      });
      assert.match(stty, /^exit=0$/m);
      assert.match(stty, /(^|\s)icanon(\s|$)/m, "canonical mode restored");
      assert.match(stty, /(^|\s)echo(\s|$)/m, "echo restored");
      assert.match(stty, /(^|\s)isig(\s|$)/m, "signals restored");
      const final = await capture(socket);
      assert.ok(final.includes("you: hello 世界"), "the transcript stays on screen after exit");
      assert.equal(await pasteProbe(socket, pasteFile), "xyz", "bracketed paste was turned off");
      assert.equal(
        (await tmux(socket, "display", "-p", "#{cursor_flag}")).trim(),
        "1",
        "cursor shown",
      );
    } finally {
      await tmux(socket, "kill-server").catch(() => "");
      await Deno.remove(sttyFile).catch(() => {});
      await Deno.remove(pasteFile).catch(() => {});
    }
  },
});

/** The pid of the demo: the `deno` process under the pane's shell(s). */
async function demoPid(socket: string): Promise<number> {
  const queue = [(await tmux(socket, "display", "-p", "-t", "0", "#{pane_pid}")).trim()];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
    if (cmdline.startsWith(Deno.execPath()) && cmdline.includes("demo.ts")) return Number(pid);
    const children = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`).catch(() => "");
    queue.push(...children.trim().split(/\s+/).filter((child) => child !== ""));
  }
  throw new Error("The demo process was not found under the tmux pane");
}

Deno.test({
  name: "tmux: SIGTERM restores the tty and exits 143 (Deno alone would leave it raw)",
  ignore: !available || Deno.build.os !== "linux",
  async fn() {
    const socket = `panto-test-${crypto.randomUUID().slice(0, 8)}`;
    const sttyFile = await Deno.makeTempFile({ prefix: "panto-stty-" });
    const pasteFile = await Deno.makeTempFile({ prefix: "panto-paste-" });
    const script = paneScript("--interval=4 --messages=1", sttyFile, pasteFile);
    try {
      await tmux(socket, "new-session", "-d", "-c", ROOT, "-x", "80", "-y", "24", script);
      await waitFor("the demo to finish streaming", async () => {
        return (await capture(socket)).some((line) => line.includes("done")) ? true : undefined;
      });
      Deno.kill(await demoPid(socket), "SIGTERM");
      const stty = await waitFor("stty output after SIGTERM", async () => {
        const text = await Deno.readTextFile(sttyFile);
        return text.includes("icanon") ? text : undefined;
      });
      assert.match(stty, /^exit=143$/m);
      assert.match(stty, /(^|\s)icanon(\s|$)/m, "canonical mode restored");
      assert.match(stty, /(^|\s)echo(\s|$)/m, "echo restored");
      const final = await capture(socket);
      assert.ok(final.some((line) => line.startsWith("── message 1 ──")), "content left in place");
      assert.equal(await pasteProbe(socket, pasteFile), "xyz", "bracketed paste was turned off");
    } finally {
      await tmux(socket, "kill-server").catch(() => "");
      await Deno.remove(sttyFile).catch(() => {});
      await Deno.remove(pasteFile).catch(() => {});
    }
  },
});
