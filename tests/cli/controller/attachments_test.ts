import assert from "node:assert/strict";
import { join } from "node:path";
import { expandAttachments } from "../../../cli/controller/attachments.ts";

Deno.test("expandAttachments: a block per file once, an image after its name, other @words left alone", async () => {
  const root = await Deno.makeTempDir();
  const project = join(root, "project");
  try {
    await Deno.mkdir(project);
    await Deno.writeTextFile(join(project, "notes.txt"), "the notes\n");
    await Deno.writeFile(join(project, "pic.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    await Deno.writeTextFile(join(root, "secret.txt"), "outside\n");
    const out = await expandAttachments(
      "see @notes.txt, @notes.txt and @pic.png; ping @alice; not @../missing.txt",
      project,
    );
    assert.deepEqual(out.files, ["notes.txt", "pic.png"]);
    assert.deepEqual(out.blocks, [
      { type: "text", text: '<file path="notes.txt">\nthe notes\n\n</file>' },
      { type: "text", text: '<file path="pic.png">[image]</file>' },
      { type: "image", mediaType: "image/png", data: "iVBORw==" },
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("expandAttachments: binary and oversized files are refused by name and limit, without loading them", async () => {
  const project = await Deno.realPath(await Deno.makeTempDir());
  try {
    const sparse = async (name: string, head: string, size: number) => {
      await Deno.writeTextFile(join(project, name), head);
      await Deno.truncate(join(project, name), size);
    };
    await sparse("dump.bin", "", 30 * 1024 * 1024);
    await sparse("huge.log", "text\n".repeat(2000), 2 * 1024 * 1024 * 1024);
    await sparse("big.png", "\x89PNG", 11 * 1024 * 1024);
    await Deno.writeTextFile(join(project, "small.txt"), "x".repeat(100 * 1024));
    const before = Deno.memoryUsage().rss;
    await assert.rejects(
      expandAttachments("look at @dump.bin", project),
      /^Error: @dump\.bin looks like a binary file: only text files and images/,
    );
    await assert.rejects(
      expandAttachments("look at @huge.log", project),
      /^Error: @huge\.log is 2\.0 GB: text files over 256\.0 KB are not attached/,
    );
    await assert.rejects(
      expandAttachments("look at @big.png", project),
      /^Error: @big\.png is 11\.0 MB: images over 10\.0 MB are not attached/,
    );
    const growth = Deno.memoryUsage().rss - before;
    // Reading the 2 GB log would show; other test files in this process grow the RSS too.
    assert.ok(growth < 400 * 1024 * 1024, `memory grew by ${growth} bytes`);
    const small = await expandAttachments("see @small.txt", project);
    const [block] = small.blocks;
    assert.equal(block?.type === "text" && block.text.length, 100 * 1024 + 32);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

/** Runs `fn` with a project and, beside it, `outside/` holding a text file and an image. */
async function withOutsideFiles(fn: (project: string, outside: string) => Promise<void>) {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const project = join(root, "project");
  const outside = join(root, "outside");
  try {
    await Deno.mkdir(project);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "notes.md"), "# from elsewhere\n");
    await Deno.writeFile(join(outside, "pic.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    await fn(project, outside);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("expandAttachments: files the user names outside the project are attached, shown as typed (absolute, ~/), once", async () => {
  await withOutsideFiles(async (project, outside) => {
    const home = join(outside, "..");
    const out = await expandAttachments(
      `read @${join(outside, "notes.md")} and @~/outside/pic.png; again @../outside/notes.md`,
      project,
      home,
    );
    assert.deepEqual(out.files, [join(outside, "notes.md"), "~/outside/pic.png"]);
    assert.deepEqual(out.blocks.slice(0, 3), [
      {
        type: "text",
        text: `<file path="${join(outside, "notes.md")}">\n# from elsewhere\n\n</file>`,
      },
      { type: "text", text: '<file path="~/outside/pic.png">[image]</file>' },
      { type: "image", mediaType: "image/png", data: "iVBORw==" },
    ]);
  });
});

Deno.test("expandAttachments: outside the project, a directory or a pipe is left alone and a large file is refused by limit", async () => {
  await withOutsideFiles(async (project, outside) => {
    const fifo = join(outside, "pipe.txt");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success, "mkfifo");
    const out = await expandAttachments(`see @${outside} and @${fifo}`, project);
    assert.deepEqual(out.files, []);
    await Deno.writeTextFile(join(outside, "big.log"), "line\n".repeat(60_000));
    await assert.rejects(
      expandAttachments(`see @${join(outside, "big.log")}`, project),
      /big\.log is over 256\.0 KB: text files over 256\.0 KB are not attached/,
    );
  });
});

const isRoot = Deno.uid() === 0;
if (isRoot) {
  console.log(
    "skipped: the unreadable-file attachment test needs a file its user may not read, which root can always read",
  );
}

Deno.test({
  name:
    "expandAttachments: a file outside the project the user may not read is an error naming it, never dropped",
  ignore: isRoot,
  async fn() {
    await withOutsideFiles(async (project, outside) => {
      const secret = join(outside, "notes.md");
      await Deno.chmod(secret, 0o000);
      await assert.rejects(
        expandAttachments(`see @${secret}`, project),
        /you may not read .*notes\.md \(permission denied\), so it is not attached/,
      );
    });
  },
});
