/**
 * highlight.js's languages, each imported the first time a code block asks
 * for it. The full build registers about 190 languages and the "common" one
 * about 40, which the chat held from its start whether or not it ever showed
 * code (about 1.5 MiB of its resident memory); the core plus the languages in
 * use holds only those. A language is named here with its aliases (so that
 * `ts` is known before `typescript` is loaded) and the languages it embeds
 * (`subLanguage`: CSS and JavaScript inside HTML), loaded with it so that the
 * embedded parts are coloured as with the full build. The table is checked
 * against the full build by `tests/tui/components/highlight_languages_test.ts`.
 *
 * @module
 */
import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";

type Loader = () => Promise<{ default: LanguageFn }>;

/**
 * Name → [aliases, embedded languages, its module], for every language of
 * highlight.js's full build.
 *
 * @example
 * ```ts
 * import { LANGUAGES } from "./highlight_languages.ts";
 * console.assert(LANGUAGES.xml![0].includes("html") && LANGUAGES.xml![1].includes("css"));
 * ```
 */
export const LANGUAGES: Readonly<
  Record<string, readonly [readonly string[], readonly string[], Loader]>
> = {
  "1c": [[], [], () => import("highlight.js/lib/languages/1c")],
  "abnf": [[], [], () => import("highlight.js/lib/languages/abnf")],
  "accesslog": [[], [], () => import("highlight.js/lib/languages/accesslog")],
  "actionscript": [["as"], [], () => import("highlight.js/lib/languages/actionscript")],
  "ada": [[], [], () => import("highlight.js/lib/languages/ada")],
  "angelscript": [["asc"], [], () => import("highlight.js/lib/languages/angelscript")],
  "apache": [["apacheconf"], [], () => import("highlight.js/lib/languages/apache")],
  "applescript": [["osascript"], [], () => import("highlight.js/lib/languages/applescript")],
  "arcade": [[], [], () => import("highlight.js/lib/languages/arcade")],
  "arduino": [["ino"], [], () => import("highlight.js/lib/languages/arduino")],
  "armasm": [["arm"], [], () => import("highlight.js/lib/languages/armasm")],
  "asciidoc": [["adoc"], ["xml"], () => import("highlight.js/lib/languages/asciidoc")],
  "aspectj": [[], [], () => import("highlight.js/lib/languages/aspectj")],
  "autohotkey": [["ahk"], [], () => import("highlight.js/lib/languages/autohotkey")],
  "autoit": [[], [], () => import("highlight.js/lib/languages/autoit")],
  "avrasm": [[], [], () => import("highlight.js/lib/languages/avrasm")],
  "awk": [[], [], () => import("highlight.js/lib/languages/awk")],
  "axapta": [["x++"], [], () => import("highlight.js/lib/languages/axapta")],
  "bash": [["sh", "zsh"], [], () => import("highlight.js/lib/languages/bash")],
  "basic": [[], [], () => import("highlight.js/lib/languages/basic")],
  "bnf": [[], [], () => import("highlight.js/lib/languages/bnf")],
  "brainfuck": [["bf"], [], () => import("highlight.js/lib/languages/brainfuck")],
  "c": [["h"], [], () => import("highlight.js/lib/languages/c")],
  "cal": [[], [], () => import("highlight.js/lib/languages/cal")],
  "capnproto": [["capnp"], [], () => import("highlight.js/lib/languages/capnproto")],
  "ceylon": [[], [], () => import("highlight.js/lib/languages/ceylon")],
  "clean": [["icl", "dcl"], [], () => import("highlight.js/lib/languages/clean")],
  "clojure": [["clj", "edn"], [], () => import("highlight.js/lib/languages/clojure")],
  "clojure-repl": [[], ["clojure"], () => import("highlight.js/lib/languages/clojure-repl")],
  "cmake": [["cmake.in"], [], () => import("highlight.js/lib/languages/cmake")],
  "coffeescript": [
    ["coffee", "cson", "iced"],
    ["javascript"],
    () => import("highlight.js/lib/languages/coffeescript"),
  ],
  "coq": [[], [], () => import("highlight.js/lib/languages/coq")],
  "cos": [["cls"], ["javascript", "sql", "xml"], () => import("highlight.js/lib/languages/cos")],
  "cpp": [
    ["cc", "c++", "h++", "hpp", "hh", "hxx", "cxx"],
    [],
    () => import("highlight.js/lib/languages/cpp"),
  ],
  "crmsh": [["crm", "pcmk"], [], () => import("highlight.js/lib/languages/crmsh")],
  "crystal": [["cr"], [], () => import("highlight.js/lib/languages/crystal")],
  "csharp": [["cs", "c#"], [], () => import("highlight.js/lib/languages/csharp")],
  "csp": [[], [], () => import("highlight.js/lib/languages/csp")],
  "css": [[], [], () => import("highlight.js/lib/languages/css")],
  "d": [[], [], () => import("highlight.js/lib/languages/d")],
  "dart": [[], ["markdown"], () => import("highlight.js/lib/languages/dart")],
  "delphi": [
    ["dpr", "dfm", "pas", "pascal"],
    [],
    () => import("highlight.js/lib/languages/delphi"),
  ],
  "diff": [["patch"], [], () => import("highlight.js/lib/languages/diff")],
  "django": [["jinja"], ["xml"], () => import("highlight.js/lib/languages/django")],
  "dns": [["bind", "zone"], [], () => import("highlight.js/lib/languages/dns")],
  "dockerfile": [["docker"], ["bash"], () => import("highlight.js/lib/languages/dockerfile")],
  "dos": [["bat", "batch", "cmd"], [], () => import("highlight.js/lib/languages/dos")],
  "dsconfig": [[], [], () => import("highlight.js/lib/languages/dsconfig")],
  "dts": [[], [], () => import("highlight.js/lib/languages/dts")],
  "dust": [["dst"], ["xml"], () => import("highlight.js/lib/languages/dust")],
  "ebnf": [[], [], () => import("highlight.js/lib/languages/ebnf")],
  "elixir": [["ex", "exs"], [], () => import("highlight.js/lib/languages/elixir")],
  "elm": [[], [], () => import("highlight.js/lib/languages/elm")],
  "erb": [[], ["ruby", "xml"], () => import("highlight.js/lib/languages/erb")],
  "erlang": [["erl"], [], () => import("highlight.js/lib/languages/erlang")],
  "erlang-repl": [[], [], () => import("highlight.js/lib/languages/erlang-repl")],
  "excel": [["xlsx", "xls"], [], () => import("highlight.js/lib/languages/excel")],
  "fix": [[], [], () => import("highlight.js/lib/languages/fix")],
  "flix": [[], [], () => import("highlight.js/lib/languages/flix")],
  "fortran": [["f90", "f95"], [], () => import("highlight.js/lib/languages/fortran")],
  "freedesktop": [
    ["desktop", "systemd"],
    [],
    () => import("highlight.js/lib/languages/freedesktop"),
  ],
  "fsharp": [["fs", "f#"], [], () => import("highlight.js/lib/languages/fsharp")],
  "gams": [["gms"], [], () => import("highlight.js/lib/languages/gams")],
  "gauss": [["gss"], [], () => import("highlight.js/lib/languages/gauss")],
  "gcode": [["nc"], [], () => import("highlight.js/lib/languages/gcode")],
  "gherkin": [["feature"], [], () => import("highlight.js/lib/languages/gherkin")],
  "glsl": [[], [], () => import("highlight.js/lib/languages/glsl")],
  "gml": [[], [], () => import("highlight.js/lib/languages/gml")],
  "go": [["golang"], [], () => import("highlight.js/lib/languages/go")],
  "golo": [[], [], () => import("highlight.js/lib/languages/golo")],
  "gradle": [[], [], () => import("highlight.js/lib/languages/gradle")],
  "graphql": [["gql"], [], () => import("highlight.js/lib/languages/graphql")],
  "groovy": [[], [], () => import("highlight.js/lib/languages/groovy")],
  "haml": [[], ["ruby"], () => import("highlight.js/lib/languages/haml")],
  "handlebars": [
    ["hbs", "html.hbs", "html.handlebars", "htmlbars"],
    ["xml"],
    () => import("highlight.js/lib/languages/handlebars"),
  ],
  "haskell": [["hs"], [], () => import("highlight.js/lib/languages/haskell")],
  "haxe": [["hx"], [], () => import("highlight.js/lib/languages/haxe")],
  "hsp": [[], [], () => import("highlight.js/lib/languages/hsp")],
  "http": [["https"], [], () => import("highlight.js/lib/languages/http")],
  "hy": [["hylang"], [], () => import("highlight.js/lib/languages/hy")],
  "inform7": [["i7"], [], () => import("highlight.js/lib/languages/inform7")],
  "ini": [["toml"], [], () => import("highlight.js/lib/languages/ini")],
  "irpf90": [[], [], () => import("highlight.js/lib/languages/irpf90")],
  "isbl": [[], [], () => import("highlight.js/lib/languages/isbl")],
  "java": [["jsp"], [], () => import("highlight.js/lib/languages/java")],
  "javascript": [
    ["js", "jsx", "mjs", "cjs"],
    ["css", "graphql", "xml"],
    () => import("highlight.js/lib/languages/javascript"),
  ],
  "jboss-cli": [["wildfly-cli"], [], () => import("highlight.js/lib/languages/jboss-cli")],
  "json": [["jsonc", "json5"], [], () => import("highlight.js/lib/languages/json")],
  "julia": [[], [], () => import("highlight.js/lib/languages/julia")],
  "julia-repl": [["jldoctest"], ["julia"], () => import("highlight.js/lib/languages/julia-repl")],
  "kotlin": [["kt", "kts", "ktm", "ktx"], [], () => import("highlight.js/lib/languages/kotlin")],
  "lasso": [["ls", "lassoscript"], [], () => import("highlight.js/lib/languages/lasso")],
  "latex": [["tex"], [], () => import("highlight.js/lib/languages/latex")],
  "ldif": [[], [], () => import("highlight.js/lib/languages/ldif")],
  "leaf": [[], [], () => import("highlight.js/lib/languages/leaf")],
  "less": [[], [], () => import("highlight.js/lib/languages/less")],
  "lisp": [[], [], () => import("highlight.js/lib/languages/lisp")],
  "livecodeserver": [[], [], () => import("highlight.js/lib/languages/livecodeserver")],
  "livescript": [["ls"], ["javascript"], () => import("highlight.js/lib/languages/livescript")],
  "llvm": [[], [], () => import("highlight.js/lib/languages/llvm")],
  "lsl": [[], [], () => import("highlight.js/lib/languages/lsl")],
  "lua": [["pluto"], [], () => import("highlight.js/lib/languages/lua")],
  "makefile": [["mk", "mak", "make"], [], () => import("highlight.js/lib/languages/makefile")],
  "markdown": [
    ["md", "mkdown", "mkd"],
    ["xml"],
    () => import("highlight.js/lib/languages/markdown"),
  ],
  "mathematica": [["mma", "wl"], [], () => import("highlight.js/lib/languages/mathematica")],
  "matlab": [[], [], () => import("highlight.js/lib/languages/matlab")],
  "maxima": [[], [], () => import("highlight.js/lib/languages/maxima")],
  "mel": [[], [], () => import("highlight.js/lib/languages/mel")],
  "mercury": [["m", "moo"], [], () => import("highlight.js/lib/languages/mercury")],
  "mipsasm": [["mips"], [], () => import("highlight.js/lib/languages/mipsasm")],
  "mizar": [[], [], () => import("highlight.js/lib/languages/mizar")],
  "mojolicious": [[], ["perl", "xml"], () => import("highlight.js/lib/languages/mojolicious")],
  "monkey": [[], [], () => import("highlight.js/lib/languages/monkey")],
  "moonscript": [["moon"], [], () => import("highlight.js/lib/languages/moonscript")],
  "n1ql": [[], [], () => import("highlight.js/lib/languages/n1ql")],
  "nestedtext": [["nt"], [], () => import("highlight.js/lib/languages/nestedtext")],
  "nginx": [["nginxconf"], [], () => import("highlight.js/lib/languages/nginx")],
  "nim": [[], [], () => import("highlight.js/lib/languages/nim")],
  "nix": [["nixos"], ["markdown"], () => import("highlight.js/lib/languages/nix")],
  "node-repl": [[], ["javascript"], () => import("highlight.js/lib/languages/node-repl")],
  "nsis": [[], [], () => import("highlight.js/lib/languages/nsis")],
  "objectivec": [
    ["mm", "objc", "obj-c", "obj-c++", "objective-c++"],
    [],
    () => import("highlight.js/lib/languages/objectivec"),
  ],
  "ocaml": [["ml"], [], () => import("highlight.js/lib/languages/ocaml")],
  "openscad": [["scad"], [], () => import("highlight.js/lib/languages/openscad")],
  "oxygene": [[], [], () => import("highlight.js/lib/languages/oxygene")],
  "parser3": [[], ["xml"], () => import("highlight.js/lib/languages/parser3")],
  "perl": [["pl", "pm"], ["mojolicious"], () => import("highlight.js/lib/languages/perl")],
  "pf": [["pf.conf"], [], () => import("highlight.js/lib/languages/pf")],
  "pgsql": [["postgres", "postgresql"], [
    "bash",
    "java",
    "json",
    "lua",
    "perl",
    "php",
    "python",
    "r",
    "ruby",
    "scheme",
    "tcl",
    "xml",
  ], () => import("highlight.js/lib/languages/pgsql")],
  "php": [[], [], () => import("highlight.js/lib/languages/php")],
  "php-template": [[], ["php", "xml"], () => import("highlight.js/lib/languages/php-template")],
  "plaintext": [["text", "txt"], [], () => import("highlight.js/lib/languages/plaintext")],
  "pony": [[], [], () => import("highlight.js/lib/languages/pony")],
  "powershell": [["pwsh", "ps", "ps1"], [], () => import("highlight.js/lib/languages/powershell")],
  "processing": [["pde"], [], () => import("highlight.js/lib/languages/processing")],
  "profile": [[], [], () => import("highlight.js/lib/languages/profile")],
  "prolog": [[], [], () => import("highlight.js/lib/languages/prolog")],
  "properties": [[], [], () => import("highlight.js/lib/languages/properties")],
  "protobuf": [["proto"], [], () => import("highlight.js/lib/languages/protobuf")],
  "puppet": [["pp"], [], () => import("highlight.js/lib/languages/puppet")],
  "purebasic": [["pb", "pbi"], [], () => import("highlight.js/lib/languages/purebasic")],
  "python": [["py", "gyp", "ipython"], [], () => import("highlight.js/lib/languages/python")],
  "python-repl": [["pycon"], ["python"], () => import("highlight.js/lib/languages/python-repl")],
  "q": [["k", "kdb"], [], () => import("highlight.js/lib/languages/q")],
  "qml": [["qt"], ["xml"], () => import("highlight.js/lib/languages/qml")],
  "r": [[], [], () => import("highlight.js/lib/languages/r")],
  "reasonml": [["re"], [], () => import("highlight.js/lib/languages/reasonml")],
  "rib": [[], [], () => import("highlight.js/lib/languages/rib")],
  "roboconf": [["graph", "instances"], [], () => import("highlight.js/lib/languages/roboconf")],
  "routeros": [["mikrotik"], [], () => import("highlight.js/lib/languages/routeros")],
  "rsl": [[], [], () => import("highlight.js/lib/languages/rsl")],
  "ruby": [
    ["rb", "gemspec", "podspec", "thor", "irb"],
    [],
    () => import("highlight.js/lib/languages/ruby"),
  ],
  "ruleslanguage": [[], [], () => import("highlight.js/lib/languages/ruleslanguage")],
  "rust": [["rs"], [], () => import("highlight.js/lib/languages/rust")],
  "sas": [[], [], () => import("highlight.js/lib/languages/sas")],
  "scala": [[], [], () => import("highlight.js/lib/languages/scala")],
  "scheme": [["scm"], [], () => import("highlight.js/lib/languages/scheme")],
  "scilab": [["sci"], [], () => import("highlight.js/lib/languages/scilab")],
  "scss": [[], [], () => import("highlight.js/lib/languages/scss")],
  "shell": [
    ["console", "shellsession"],
    ["bash"],
    () => import("highlight.js/lib/languages/shell"),
  ],
  "smali": [[], [], () => import("highlight.js/lib/languages/smali")],
  "smalltalk": [["st"], [], () => import("highlight.js/lib/languages/smalltalk")],
  "sml": [["ml"], [], () => import("highlight.js/lib/languages/sml")],
  "sqf": [[], [], () => import("highlight.js/lib/languages/sqf")],
  "sql": [[], [], () => import("highlight.js/lib/languages/sql")],
  "stan": [["stanfuncs"], [], () => import("highlight.js/lib/languages/stan")],
  "stata": [["do", "ado"], [], () => import("highlight.js/lib/languages/stata")],
  "step21": [["p21", "step", "stp"], [], () => import("highlight.js/lib/languages/step21")],
  "stylus": [["styl"], [], () => import("highlight.js/lib/languages/stylus")],
  "subunit": [[], [], () => import("highlight.js/lib/languages/subunit")],
  "swift": [[], [], () => import("highlight.js/lib/languages/swift")],
  "taggerscript": [[], [], () => import("highlight.js/lib/languages/taggerscript")],
  "tap": [[], ["yaml"], () => import("highlight.js/lib/languages/tap")],
  "tcl": [["tk"], [], () => import("highlight.js/lib/languages/tcl")],
  "thrift": [[], [], () => import("highlight.js/lib/languages/thrift")],
  "tp": [[], [], () => import("highlight.js/lib/languages/tp")],
  "twig": [["craftcms"], ["xml"], () => import("highlight.js/lib/languages/twig")],
  "typescript": [
    ["ts", "tsx", "mts", "cts"],
    ["css", "graphql", "xml"],
    () => import("highlight.js/lib/languages/typescript"),
  ],
  "vala": [[], [], () => import("highlight.js/lib/languages/vala")],
  "vbnet": [["vb"], [], () => import("highlight.js/lib/languages/vbnet")],
  "vbscript": [["vbs"], [], () => import("highlight.js/lib/languages/vbscript")],
  "vbscript-html": [
    [],
    ["vbscript", "xml"],
    () => import("highlight.js/lib/languages/vbscript-html"),
  ],
  "verilog": [["v", "sv", "svh"], [], () => import("highlight.js/lib/languages/verilog")],
  "vhdl": [[], [], () => import("highlight.js/lib/languages/vhdl")],
  "vim": [[], [], () => import("highlight.js/lib/languages/vim")],
  "wasm": [[], [], () => import("highlight.js/lib/languages/wasm")],
  "wren": [[], [], () => import("highlight.js/lib/languages/wren")],
  "x86asm": [[], [], () => import("highlight.js/lib/languages/x86asm")],
  "xl": [["tao"], [], () => import("highlight.js/lib/languages/xl")],
  "xml": [["html", "xhtml", "rss", "atom", "xjb", "xsd", "xsl", "plist", "wsf", "svg"], [
    "css",
    "javascript",
  ], () => import("highlight.js/lib/languages/xml")],
  "xquery": [["xpath", "xq", "xqm"], ["xml"], () => import("highlight.js/lib/languages/xquery")],
  "yaml": [["yml"], ["ruby"], () => import("highlight.js/lib/languages/yaml")],
  "zephir": [["zep"], [], () => import("highlight.js/lib/languages/zephir")],
};

let aliases: Map<string, string> | undefined;

/** Every name and alias, lower case, → the language's name. */
function aliasTable(): Map<string, string> {
  aliases ??= new Map(
    Object.entries(LANGUAGES).flatMap(([name, [names]]) =>
      [name, ...names].map((alias) => [alias.toLowerCase(), name] as const)
    ),
  );
  return aliases;
}

/**
 * The highlight.js name of `language` (a name or alias such as "ts", any
 * case), or undefined when highlight.js has no such language.
 *
 * @example
 * ```ts
 * import { languageName } from "./highlight_languages.ts";
 * console.assert(languageName("TS") === "typescript" && languageName("nope") === undefined);
 * ```
 */
export function languageName(language: string): string | undefined {
  return aliasTable().get(language.toLowerCase());
}

const loading = new Map<string, Promise<void>>();

/** `name` and the languages it embeds, theirs too (HTML and JavaScript embed each other). */
function withEmbedded(name: string): Set<string> {
  const names = new Set<string>();
  const stack = [name];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (names.has(next)) continue;
    names.add(next);
    stack.push(...LANGUAGES[next]![1]);
  }
  return names;
}

/** Loads and registers the language `name` (a name from {@linkcode LANGUAGES}), once. */
function loadOne(name: string): Promise<void> {
  let done = loading.get(name);
  if (done === undefined) {
    done = LANGUAGES[name]![2]().then((loaded) => hljs.registerLanguage(name, loaded.default));
    loading.set(name, done);
  }
  return done;
}

/** Loads the language `name` and the languages it embeds. */
async function load(name: string): Promise<void> {
  await Promise.all([...withEmbedded(name)].map(loadOne));
}

/**
 * The highlight.js core with `language` registered, if it is: else the
 * language (when highlight.js has it) starts loading, and a later call
 * finds it, a few milliseconds on.
 *
 * @param language A name or alias, any case.
 * @returns highlight.js, when `language` can be highlighted now.
 *
 * @example
 * ```ts
 * import { loadLanguages, readyHighlighter } from "./highlight_languages.ts";
 * await loadLanguages(["ts"]);
 * console.assert(readyHighlighter("ts") !== undefined);
 * ```
 */
export function readyHighlighter(language: string): typeof hljs | undefined {
  const name = languageName(language);
  if (name === undefined) return undefined;
  if (hljs.getLanguage(name) !== undefined) return hljs;
  // A module that fails to load leaves the code plain, as an unknown language does.
  load(name).catch(() => {});
  return undefined;
}

/**
 * Loads the languages named (names or aliases; unknown ones are skipped),
 * so that code in them is coloured from its first drawing.
 *
 * @param languages Names or aliases, any case.
 * @returns Once they are all registered; undefined when they all are already.
 *
 * @example
 * ```ts
 * import { createTheme, highlightCode, loadLanguages } from "@panto/tui";
 * await loadLanguages(["python"]);
 * console.assert(loadLanguages(["py"]) === undefined);
 * highlightCode("x = 1", "python", createTheme({ noColor: true }));
 * ```
 */
export function loadLanguages(languages: Iterable<string>): Promise<void> | undefined {
  const missing = new Set<string>();
  for (const language of languages) {
    const name = languageName(language);
    if (name !== undefined && hljs.getLanguage(name) === undefined) missing.add(name);
  }
  return missing.size === 0 ? undefined : Promise.all([...missing].map(load)).then(() => {});
}
