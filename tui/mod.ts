/**
 * `@panto/tui`: a scrollback-preserving differential terminal renderer,
 * input decoding, a theme and generic components (text, markdown, editor,
 * select list, loader). panto's chat components live in `@panto/cli`.
 *
 * @example Lay components out and render them at a width
 * ```ts
 * import { Container, Text, visibleWidth } from "@panto/tui";
 *
 * const screen = new Container();
 * const status = new Text("Ready");
 * screen.addChild(new Text("漢字 are wide"));
 * screen.addChild(status);
 * console.assert(visibleWidth("漢字") === 4);
 * screen.render(20);
 * status.append(": 3 files");
 * // Only the second line changed: the renderer rewrites that line alone.
 * console.assert(screen.firstLineChanged() === 1);
 * console.assert(screen.render(20).at(-1) === "Ready: 3 files");
 * ```
 *
 * A terminal program hands a root component to a {@linkcode TUI} on a
 * {@linkcode ProcessTerminal}; `tui/examples/demo.ts` (`deno task
 * tui-demo`) is a small one.
 *
 * @module
 */
export type { Component } from "./component.ts";
export { CURSOR_MARKER } from "./component.ts";
export type { Key } from "./keys.ts";
export { formatKey, matchesKey, parseKey } from "./keys.ts";
export { sliceColumns, truncateToWidth, visibleWidth } from "./text_width.ts";
export { escapeTerminalText, sanitizeTerminalText, TerminalTextSanitizer } from "./sanitize.ts";
export type { ScreenPosition, Terminal } from "./terminal.ts";
export { ProcessTerminal } from "./process_terminal.ts";
export type { ProcessTerminalOptions, TerminalIo } from "./process_terminal.ts";
export type { ConsoleSize } from "./runtime/console_size.ts";
export type { TerminalSignal } from "./runtime/signals.ts";
export { pastedText, StdinBuffer } from "./input_splitter.ts";
export type { StdinBufferOptions } from "./input_splitter.ts";
export { KeyboardNegotiator } from "./kitty.ts";
export { ImageProbe, NO_IMAGES, TERMINAL_HINT_VARIABLES } from "./image_support.ts";
export type { CellSize, ImageProbeOptions, ImageSupport, TerminalHints } from "./image_support.ts";
export {
  deleteKittyImage,
  encodeIterm2Image,
  encodeKittyImage,
  imageRemoval,
  imageRow,
  KITTY_CHUNK_SIZE,
  parseImageRow,
  wrapForTmux,
} from "./terminal_image.ts";
export type {
  ImageProtocol,
  ImageRow,
  ImageRowOptions,
  Iterm2ImageOptions,
  KittyImageOptions,
} from "./terminal_image.ts";
export type { KeyboardNegotiatorOptions, KeyboardProtocol } from "./kitty.ts";
export { DEFAULT_KEYBINDINGS, Keybindings } from "./keybindings.ts";
export type { KeybindingMap } from "./keybindings.ts";
export { Container } from "./container.ts";
export { TUI } from "./tui.ts";
export type { InputHook, OverlayHandle, RenderStats, TuiOptions } from "./tui.ts";
export type { FullScreenHandle } from "./full_screen.ts";
export type { OverlayAnchor, OverlayOptions, OverlaySize } from "./overlay.ts";
export { createTheme, defaultTheme } from "./theme.ts";
export type { ColorValue, Theme, ThemeBackground, ThemeColor, ThemeOptions } from "./theme.ts";
export { BUILTIN_THEMES, isBuiltinTheme } from "./builtin_themes.ts";
export type { BuiltinThemeName, ThemePalette } from "./builtin_themes.ts";
export { parseThemeFile, ThemeFileError } from "./theme_file.ts";
export { SwitchableTheme } from "./switchable_theme.ts";
export { detectColorDepth } from "./color_depth.ts";
export type { ColorDepth } from "./color_depth.ts";
export { breakText, wrapText } from "./components/wrap_text.ts";
export { highlightCode } from "./components/code_highlight.ts";
export { loadLanguages } from "./components/highlight_languages.ts";
export { CachedComponent } from "./components/cached_component.ts";
export { Spacer } from "./components/spacer.ts";
export { Text } from "./components/text.ts";
export type { TextOptions } from "./components/text.ts";
export { Markdown } from "./components/markdown.ts";
export type { MarkdownOptions } from "./components/markdown.ts";
export { Editor } from "./components/editor.ts";
export type { EditorOptions } from "./components/editor.ts";
export type {
  AutocompleteItem,
  AutocompleteProvider,
  AutocompleteRequest,
  AutocompleteSuggestions,
} from "./components/autocomplete.ts";
export { Image } from "./components/image.ts";
export type { ImageOptions, ImageSource } from "./components/image.ts";
export { Loader } from "./components/loader.ts";
export type { LoaderOptions } from "./components/loader.ts";
export { Pager } from "./components/pager.ts";
export type { PagerContent, PagerOptions, PagerStart } from "./components/pager.ts";
export { Panel } from "./components/panel.ts";
export type { PanelOptions } from "./components/panel.ts";
export { SelectList } from "./components/select_list.ts";
export type { SelectItem, SelectListOptions } from "./components/select_list.ts";
export type { CursorPosition } from "./components/editor_buffer.ts";
