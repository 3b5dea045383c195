import assert from "node:assert/strict";
import { join } from "node:path";
import { gitBranch } from "../../../cli/chat/git_branch.ts";

Deno.test("gitBranch reads the branch from .git/HEAD, from a subdirectory, and through a worktree's .git file", async () => {
  const root = await Deno.makeTempDir();
  try {
    assert.equal(gitBranch(root), undefined, "no repository");
    await Deno.mkdir(join(root, "repo", ".git", "worktrees", "wt"), { recursive: true });
    await Deno.mkdir(join(root, "repo", "src", "deep"), { recursive: true });
    await Deno.writeTextFile(join(root, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
    assert.equal(gitBranch(join(root, "repo", "src", "deep")), "main");

    await Deno.writeTextFile(
      join(root, "repo", ".git", "worktrees", "wt", "HEAD"),
      "ref: refs/heads/feature/x\n",
    );
    await Deno.mkdir(join(root, "wt"));
    await Deno.writeTextFile(
      join(root, "wt", ".git"),
      `gitdir: ${join(root, "repo", ".git", "worktrees", "wt")}\n`,
    );
    assert.equal(gitBranch(join(root, "wt")), "feature/x");

    await Deno.writeTextFile(
      join(root, "repo", ".git", "HEAD"),
      "0123456789abcdef0123456789abcdef01234567\n",
    );
    assert.equal(
      gitBranch(join(root, "repo")),
      "01234567",
      "a detached HEAD shows a short commit id",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
