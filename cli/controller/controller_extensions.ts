import type { Agent, Tool } from "@panto/lib";
import type { ExtensionHost } from "../extensions/extension_host.ts";
import { errorMessage } from "../shared/error_message.ts";
import type { ChatArgs } from "../setup/args.ts";
import { type ExtensionSurface, type ExtensionTarget, loadExtensions } from "./load_extensions.ts";

/** Where the extensions load, and the agent their tools join (replaced with the session). */
export interface ExtensionHome
  extends Pick<ExtensionTarget, "cwd" | "pantoHome" | "untrustedProject"> {
  /** The current agent. */
  agent(): Agent;
}

/**
 * The controller's extensions: loaded once the view lends its surface,
 * their tools on every session's agent, unloaded and loaded again by
 * `/reload`.
 */
export class ControllerExtensions {
  readonly #home: ExtensionHome;
  readonly #args: ChatArgs;
  /** The extensions' tools, for the agent of every session opened later. */
  readonly tools: Tool[] = [];
  #host: ExtensionHost | undefined;
  /** What the view lent the extensions, to load them again on `/reload`. */
  #surface: ExtensionSurface | undefined;
  /** Aborts when the extensions loaded last are unloaded (their error listeners go). */
  #loaded: AbortController | undefined;
  #loads = 0;

  /**
   * Creates the slot; nothing loads until {@linkcode ControllerExtensions.load}.
   *
   * @param home Where they load, and the agent.
   * @param args The command line (`--no-extensions`, `-e`).
   */
  constructor(home: ExtensionHome, args: ChatArgs) {
    this.#home = home;
    this.#args = args;
  }

  /** The host, once loading found any. */
  get host(): ExtensionHost | undefined {
    return this.#host;
  }

  /** Whether a view asked for extensions (a reload checks their trust again). */
  get wanted(): boolean {
    return this.#surface !== undefined;
  }

  /**
   * Loads the extensions and wires their tools into the agent.
   *
   * @param surface What the view lends extensions.
   * @returns The host, when any extension was found.
   */
  async load(surface: ExtensionSurface): Promise<ExtensionHost | undefined> {
    this.#surface = surface;
    this.#loaded = new AbortController();
    const closed = surface.closed
      ? AbortSignal.any([surface.closed, this.#loaded.signal])
      : this.#loaded.signal;
    const home = this.#home;
    this.#host = await loadExtensions(
      {
        cwd: home.cwd,
        pantoHome: home.pantoHome,
        untrustedProject: home.untrustedProject,
        registerTool: (tool) => {
          home.agent().registerTool(tool);
          this.tools.push(tool);
        },
        messages: () => home.agent().conversation.messages,
        reloads: this.#loads++,
      },
      this.#args,
      { ...surface, closed },
    );
    return this.#host;
  }

  /**
   * Unloads the extensions (commands, keys, UI handlers, tools) and loads
   * them again.
   *
   * @returns What the user must be told when they could not load again.
   */
  async reload(): Promise<string | undefined> {
    if (!this.#surface) return undefined;
    this.#host?.unload();
    this.#loaded?.abort();
    const agent = this.#home.agent();
    for (const tool of this.tools.splice(0)) agent.unregisterTool(tool.decl.name);
    try {
      await this.load(this.#surface);
      return undefined;
    } catch (error) {
      // Their trust was checked by readReload: only a file changed since then gets here.
      this.#host = undefined;
      return `No extensions are loaded now: ${errorMessage(error)}`;
    }
  }
}
