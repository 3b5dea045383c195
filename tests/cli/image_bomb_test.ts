/**
 * Images through the real program: a PNG bomb the model reads is refused at
 * once (the model gets a note, panto answers and exits 0), SIGTERM stops a
 * slow resize at once, and the bundled program resizes in its worker too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { imageSize } from "image-size";
import { craftPng } from "../support/crafted_png.ts";
import { FakeLlmServer } from "../support/fake_llm_server.ts";
import { runPanto } from "../support/run_panto.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "cli/main.ts");
const BOMB_NOTE = "Refusing to decode image/png of 30000×30000 (900 megapixels)";

function bomb(): Promise<Uint8Array> {
  return craftPng({ width: 30000, height: 30000, depth: 1, colorType: 0 });
}

/** Two `read` calls in one turn, then the final answer. */
function enqueueReads(server: FakeLlmServer, paths: string[], answer: string): void {
  server.enqueue({
    kind: "turn",
    blocks: paths.map((path, i) => ({
      type: "tool_use" as const,
      id: `call_${i}`,
      name: "read",
      input: { path },
    })),
  });
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: answer }] });
}

/** The sizes of the images sent back to the model (OpenAI: data URLs in a user message). */
function sentImageSizes(body: unknown): string[] {
  const urls = JSON.stringify(body).match(/data:image\/png;base64,[A-Za-z0-9+/=]+/g) ?? [];
  return urls.map((url) => {
    const size = imageSize(Uint8Array.fromBase64(url.slice(url.indexOf(",") + 1)));
    return `${size.width}×${size.height}`;
  });
}

Deno.test("panto -p: the model reads a PNG bomb; it gets a note instead, and panto answers at once", async () => {
  const project = await Deno.makeTempDir({ prefix: "panto-bomb-" });
  const server = await FakeLlmServer.start();
  try {
    await Deno.writeFile(join(project, "bomb.png"), await bomb());
    enqueueReads(server, ["bomb.png"], "That image is too large.");
    const started = performance.now();
    const run = await runPanto(
      [
        "-p",
        "look at bomb.png",
        "--api",
        "openai-chat",
        "--base-url",
        server.openaiBaseUrl,
        "-m",
        "m",
      ],
      { cwd: project },
    );
    const elapsed = performance.now() - started;
    console.log(`panto answered in ${elapsed.toFixed(0)} ms`);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "That image is too large.\n");
    const followUp = JSON.stringify(server.requests[1]?.body);
    assert.ok(followUp.includes(`[image omitted: ${BOMB_NOTE}`), followUp.slice(0, 2000));
    assert.match(followUp, /scale it down to at most 2000 px/);
    assert.deepEqual(sentImageSizes(server.requests[1]?.body), []);
    // Start-up alone takes a few seconds on a busy machine; decoding the bomb took minutes.
    assert.ok(elapsed < 60_000, `panto took ${elapsed} ms`);
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
  }
});

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = parts.pop() ?? "";
    yield* parts;
  }
  if (rest) yield rest;
}

Deno.test("panto -p: SIGTERM during a slow resize stops it and exits 143", async () => {
  const project = await Deno.makeTempDir({ prefix: "panto-slow-image-" });
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  const server = await FakeLlmServer.start();
  try {
    // Allowed (just under the 16-bit bound) but about a second or more to decode.
    await Deno.writeFile(
      join(project, "slow.png"),
      await craftPng({ width: 2896, height: 2896, depth: 16 }),
    );
    enqueueReads(server, ["slow.png"], "unreachable");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        ...["run", "-A", "--quiet", MAIN, "-p", "--mode", "json", "look at slow.png"],
        ...["--api", "openai-chat", "--base-url", server.openaiBaseUrl, "-m", "m"],
      ],
      cwd: project,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno"),
        HOME: home,
        PANTO_HOME: home,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const lines = linesOf(child.stdout);
    // Read on by hand: leaving a for-await loop would close stdout, and panto would exit on EPIPE.
    for (;;) {
      const line = await lines.next();
      if (line.done) assert.fail(`panto ended before the read: ${await stderr}`);
      if (line.value.includes('"type":"tool_dispatch_start"')) break;
    }
    // The read itself takes milliseconds; then the resize runs for a second or more.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const signalled = performance.now();
    child.kill("SIGTERM");
    // Generous for a busy machine: a SIGKILL (137, not 143) means it did not stop by itself.
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const status = await child.status;
    clearTimeout(timer);
    const exitMs = performance.now() - signalled;
    const after: string[] = [];
    for (let line = await lines.next(); !line.done; line = await lines.next()) {
      after.push(line.value);
    }
    console.log(`exited ${exitMs.toFixed(0)} ms after SIGTERM`);
    assert.equal(status.code, 143, await stderr);
    assert.equal(server.requests.length, 1, "no request after the interrupt");
    assert.ok(
      after.some((line) => line.includes("the run was aborted while it was being resized")),
      `the signal came during the resize: ${after.join("\n").slice(0, 2000)}`,
    );
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the bundled program resizes images in its worker and refuses a bomb", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-bundle-image-" });
  const server = await FakeLlmServer.start();
  try {
    const bundle = async (entry: string, name: string) => {
      const bundled = await new Deno.Command(Deno.execPath(), {
        args: ["bundle", "--quiet", "--platform=deno", "-o", join(dir, name), join(ROOT, entry)],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(bundled.success, new TextDecoder().decode(bundled.stderr));
    };
    await bundle("cli/main.ts", "panto_main.js");
    await bundle("cli/launcher/launch.ts", "panto.js");
    const work = join(dir, "work");
    await Deno.mkdir(work);
    await Deno.writeFile(join(work, "wide.png"), await craftPng({ width: 3000, height: 1000 }));
    await Deno.writeFile(join(work, "bomb.png"), await bomb());
    enqueueReads(server, ["wide.png", "bomb.png"], "bundled answer");
    // As `deno task bundle`'s users run it: the launcher, with its scoped permissions.
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        ...[
          "run",
          "--quiet",
          "--no-prompt",
          "--allow-read",
          "--allow-env=HOME,PANTO_HOME,PANTO_CWD",
        ],
        ...["--allow-run", join(dir, "panto.js"), "-p", "look at both"],
        ...["--api", "openai-chat", "--base-url", server.openaiBaseUrl, "-m", "m"],
      ],
      cwd: work,
      clearEnv: true,
      env: {
        PANTO_HOME: join(dir, "home"),
        HOME: dir,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno"),
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    assert.equal(run.code, 0, decoder.decode(run.stderr));
    assert.equal(decoder.decode(run.stdout), "bundled answer\n");
    const followUp = server.requests[1]?.body;
    assert.deepEqual(sentImageSizes(followUp), ["2000×667"], "wide.png resized in the worker");
    assert.ok(JSON.stringify(followUp).includes(BOMB_NOTE));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
