import assert from "node:assert/strict";
import { splitCommandArgs, substituteArgs } from "../../../cli/skills/template_args.ts";

Deno.test("template args: words split at spaces and tabs; quotes group; empty words dropped (pi's reading)", () => {
  assert.deepEqual(splitCommandArgs(`Button "onClick handler" 'disabled support'`), [
    "Button",
    "onClick handler",
    "disabled support",
  ]);
  assert.deepEqual(splitCommandArgs("  a\t\tb  "), ["a", "b"]);
  assert.deepEqual(splitCommandArgs(`say "it's"`), ["say", "it's"]);
  assert.deepEqual(splitCommandArgs(`x "" y`), ["x", "y"]);
  assert.deepEqual(splitCommandArgs(""), []);
});

Deno.test("template args: $1, $@, $ARGUMENTS, ${@:N} and ${@:N:L} as pi fills them", () => {
  const args = ["Button", "onClick handler", "disabled support"];
  assert.equal(
    substituteArgs("Create a React component named $1 with features: $@", args),
    "Create a React component named Button with features: Button onClick handler disabled support",
  );
  assert.equal(substituteArgs("$ARGUMENTS", args), args.join(" "));
  assert.equal(substituteArgs("rest: ${@:2}", args), "rest: onClick handler disabled support");
  assert.equal(substituteArgs("one: ${@:2:1}", args), "one: onClick handler");
  assert.equal(substituteArgs("from zero: ${@:0}", ["a", "b"]), "from zero: a b");
  assert.equal(substituteArgs("missing: [$4] [$0]", args), "missing: [] []");
  assert.equal(substituteArgs("$10", Array.from({ length: 10 }, (_, i) => `a${i + 1}`)), "a10");
});

Deno.test("template args: ${N:-default} gives the default for a missing or empty argument", () => {
  assert.equal(substituteArgs("Review ${1:-the staged diff}", []), "Review the staged diff");
  assert.equal(substituteArgs("Review ${1:-the staged diff}", ["main.ts"]), "Review main.ts");
  assert.equal(substituteArgs("${2:-}", ["a"]), "");
});

Deno.test("template args: an argument's own $-text is never substituted again", () => {
  assert.equal(substituteArgs("$1 / $2 / $@", ["$2", "$@"]), "$2 / $@ / $2 $@");
  assert.equal(substituteArgs("${1:-x} $2", ["$2", "two"]), "$2 two");
});
