import assert from "node:assert/strict";
import { join } from "node:path";
import { writeConfigValue } from "../../../cli/config/write_config_value.ts";
import { UsageError } from "../../../cli/shared/errors.ts";

/** Runs `fn` with a config file path in a fresh directory (the file holds `text` when given). */
async function withConfig(
  text: string | undefined,
  fn: (file: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "panto-write-config-" });
  try {
    const file = join(dir, "config.json");
    if (text !== undefined) await Deno.writeTextFile(file, text);
    await fn(file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const COMMENTED = `// My panto settings.
{
  /* the model I use most */
  "defaultModel": "sonnet",
  "compaction": {
    "enabled": true, // on for long sessions
  },
  "parallelTools": false,
}
`;

Deno.test("writeConfigValue changes one value and keeps comments, order and trailing commas", async () => {
  await withConfig(COMMENTED, async (file) => {
    await writeConfigValue(file, "config.json", ["compaction", "enabled"], false);
    assert.equal(
      await Deno.readTextFile(file),
      COMMENTED.replace('"enabled": true', '"enabled": false'),
    );
  });
});

Deno.test("writeConfigValue adds a new key after the others, in the file's indentation", async () => {
  const text = '{\n    // mine\n    "defaultModel": "sonnet"\n}\n';
  await withConfig(text, async (file) => {
    await writeConfigValue(file, "config.json", ["theme"], "light");
    const after = await Deno.readTextFile(file);
    assert.equal(after, '{\n    // mine\n    "defaultModel": "sonnet",\n    "theme": "light"\n}\n');
  });
});

Deno.test("writeConfigValue puts a new key after the previous key's line comment, leaving one-line values alone", async () => {
  const text = '{\n  "retry": { "maxRetries": 0 }, // quick\n  "theme": "dark" // mine\n}\n';
  await withConfig(text, async (file) => {
    await writeConfigValue(file, "config.json", ["cycleModels"], ["fast", "smart"]);
    assert.equal(
      await Deno.readTextFile(file),
      '{\n  "retry": { "maxRetries": 0 }, // quick\n  "theme": "dark", // mine\n' +
        '  "cycleModels": [\n    "fast",\n    "smart"\n  ]\n}\n',
    );
  });
});

Deno.test("writeConfigValue removes a last key's lines and the comma before it", async () => {
  const text = '{\n  "theme": "dark", // mine\n  "cycleModels": ["fast"] // ctrl+p\n}\n';
  await withConfig(text, async (file) => {
    await writeConfigValue(file, "config.json", ["cycleModels"], undefined);
    assert.equal(await Deno.readTextFile(file), '{\n  "theme": "dark" // mine\n}\n');
  });
});

Deno.test("writeConfigValue creates missing objects on the way", async () => {
  await withConfig('{\n  "parallelTools": true\n}\n', async (file) => {
    await writeConfigValue(file, "config.json", ["tools", "requireApproval"], ["bash", "write"]);
    const data = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual(data, { parallelTools: true, tools: { requireApproval: ["bash", "write"] } });
  });
});

Deno.test("writeConfigValue creates the file and its directory when missing", async () => {
  await withConfig(undefined, async (file) => {
    const nested = join(file, "..", "home", "config.json");
    await writeConfigValue(nested, "config.json", ["hideThinkingBlock"], true);
    assert.equal(await Deno.readTextFile(nested), '{\n  "hideThinkingBlock": true\n}\n');
  });
});

Deno.test("writeConfigValue removes a key given undefined, keeping the rest", async () => {
  await withConfig(COMMENTED, async (file) => {
    await writeConfigValue(file, "config.json", ["defaultModel"], undefined);
    const after = await Deno.readTextFile(file);
    assert.doesNotMatch(after, /defaultModel/);
    assert.match(after, /\/\/ on for long sessions/);
  });
});

Deno.test("writeConfigValue leaves a broken file alone and says where it is broken", async () => {
  const broken = '{\n  "defaultModel": "sonnet"\n  "theme": "dark"\n}\n';
  await withConfig(broken, async (file) => {
    await assert.rejects(
      writeConfigValue(file, "~/.panto/config.json", ["theme"], "light"),
      (error: Error) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /^~\/\.panto\/config\.json:3:3: invalid JSON: expected ","/);
        assert.match(error.message, /the file was not changed/);
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(file), broken);
  });
});

Deno.test("writeConfigValue refuses a value the schema refuses, naming it, and writes nothing", async () => {
  await withConfig(COMMENTED, async (file) => {
    await assert.rejects(
      writeConfigValue(file, "config.json", ["defaultThinkingLevel"], "max"),
      (error: Error) => {
        assert.ok(error instanceof UsageError);
        assert.match(
          error.message,
          /^config\.json: defaultThinkingLevel: expected one of .*got "max"/,
        );
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(file), COMMENTED);
  });
});

Deno.test("writeConfigValue updates the file a symbolic link names, keeping the link and the mode", async () => {
  await withConfig('{ "theme": "dark" }\n', async (file) => {
    await Deno.chmod(file, 0o600);
    const link = join(file, "..", "link.json");
    await Deno.symlink(file, link);
    await writeConfigValue(link, "link.json", ["theme"], "light");
    assert.equal(await Deno.readTextFile(file), '{ "theme": "light" }\n');
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const left = (await Array.fromAsync(Deno.readDir(join(file, "..")))).map((e) => e.name).sort();
    assert.deepEqual(left, ["config.json", "link.json"]);
  });
});

Deno.test("writeConfigValue keeps CRLF line ends", async () => {
  await withConfig('{\r\n  "theme": "dark"\r\n}\r\n', async (file) => {
    await writeConfigValue(file, "config.json", ["hideThinkingBlock"], true);
    assert.equal(
      await Deno.readTextFile(file),
      '{\r\n  "theme": "dark",\r\n  "hideThinkingBlock": true\r\n}\r\n',
    );
  });
});
