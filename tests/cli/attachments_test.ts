import assert from "node:assert/strict";
import { join } from "node:path";
import { expandAttachments } from "../../cli/attachments.ts";

Deno.test("expandAttachments: text files inline once, images attached, other @words and outside paths left alone", async () => {
  const root = await Deno.makeTempDir();
  const project = join(root, "project");
  try {
    await Deno.mkdir(project);
    await Deno.writeTextFile(join(project, "notes.txt"), "the notes\n");
    await Deno.writeFile(join(project, "pic.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    await Deno.writeTextFile(join(root, "secret.txt"), "outside\n");
    const out = await expandAttachments(
      "see @notes.txt, @notes.txt and @pic.png; ping @alice; try @../secret.txt",
      project,
    );
    assert.deepEqual(out.files, ["notes.txt", "pic.png"]);
    assert.equal(out.text.split('<file path="notes.txt">').length - 1, 1, "attached once");
    assert.match(out.text, /the notes/);
    assert.ok(!out.text.includes("outside"), "a path outside the project is not read");
    assert.equal(out.images.length, 1);
    assert.equal(out.images[0]!.mediaType, "image/png");
    assert.equal(out.images[0]!.data, new Uint8Array([0x89, 0x50, 0x4e, 0x47]).toBase64());
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
