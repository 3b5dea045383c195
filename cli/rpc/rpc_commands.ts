/**
 * The commands RPC mode accepts, as zod schemas (the schema is the type),
 * and the parsing of one input line into a command or an error that names
 * the problem.
 *
 * @module
 */
import { z } from "zod";
import { type ImageBlock, REASONING_LEVELS } from "@panto/lib";
import { describeIssue } from "../config/config_schema.ts";
import { didYouMean } from "../shared/did_you_mean.ts";
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES } from "@panto/lib/tools";
import { formatBytes } from "@panto/lib/tools";
import { APPROVAL_OPTION_IDS } from "./rpc_approvals.ts";

/** A command's optional correlation id, echoed in its response. */
const idSchema = z.union([z.string(), z.number()], { error: "expected a string or a number" });

/** An image: base64 data and its media type. */
const imageFields = z.strictObject({
  type: z.literal("image").optional(),
  data: z.base64({ error: "expected base64 data" }).check(
    z.maxLength(Math.ceil(MAX_IMAGE_BYTES / 3) * 4, {
      error: `the image is over ${formatBytes(MAX_IMAGE_BYTES)}: send a smaller one`,
    }),
  ),
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
});

/** An image as a panto image block; pi's clients name the media type `mimeType`, which is taken too. */
const imageSchema = z.preprocess(renameMimeType, imageFields).transform((image): ImageBlock => ({
  type: "image",
  mediaType: image.mediaType,
  data: image.data,
}));

function renameMimeType(value: unknown): unknown {
  if (typeof value !== "object" || value === null || "mediaType" in value) return value;
  if (!("mimeType" in value)) return value;
  const { mimeType, ...rest } = value;
  return { ...rest, mediaType: mimeType };
}

const reasoningSchema = z.enum(REASONING_LEVELS);

/** Fields every command has. */
const base = { id: idSchema.optional() };

function command<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ ...base, type: z.literal(type), ...shape });
}

/** Every command, told apart by `type`. */
const commandSchemas = [
  command("prompt", {
    message: z.string(),
    images: z.array(imageSchema).optional(),
    // pi's way to queue a prompt sent while something runs.
    streamingBehavior: z.enum(["steer", "followUp"]).optional(),
  }).superRefine((prompt, context) => {
    if (prompt.message.trim() !== "" || prompt.images?.length) return;
    context.addIssue({
      code: "custom",
      path: ["message"],
      input: prompt.message,
      message: "expected some text (or an image)",
    });
  }),
  command("steer", { message: z.string().min(1) }),
  command("follow_up", { message: z.string().min(1) }),
  command("abort", {}),
  command("get_state", {}),
  command("get_messages", {}),
  command("get_available_models", {}),
  command("get_mcp_servers", {}),
  command("set_model", { model: z.string().min(1), thinkingLevel: reasoningSchema.optional() }),
  command("cycle_model", { direction: z.literal([1, -1]).optional() }),
  command("set_thinking_level", { level: reasoningSchema }),
  command("compact", { instructions: z.string().optional() }),
  command("bash", { command: z.string().trim().min(1) }),
  command("new_session", {}),
  command("switch_session", { sessionId: z.string().min(1) }),
  command("fork", { messageIndex: z.int().min(0).optional() }),
  command("get_sessions", { limit: z.int().min(1).optional() }),
  command("set_session_name", { name: z.string().trim().min(1) }),
  command("approval_response", {
    requestId: z.string().min(1),
    optionId: z.enum(APPROVAL_OPTION_IDS),
    reason: z.string().optional(),
  }),
] as const;

const commandSchema = z.discriminatedUnion("type", commandSchemas);

/** A command read from standard input. */
export type RpcCommand = z.output<typeof commandSchema>;

/** The name of a command. */
export type RpcCommandType = RpcCommand["type"];

/** Every command's name, in the order of the docs. */
export const RPC_COMMAND_TYPES: readonly RpcCommandType[] = commandSchemas.map((s) =>
  s.shape.type.value
);

/** A line that is not a valid command: what is known of it, and why. */
export interface RpcCommandError {
  /** The command's `id`, when it had a valid one. */
  id?: string | number;
  /** The command's `type`, when it named a known one. */
  command?: RpcCommandType;
  /** What is wrong and how to fix it. */
  error: string;
}

/**
 * Parses one input line into a command.
 *
 * @param line The line (one JSON object).
 * @returns The command, or what is wrong with the line.
 */
export function parseCommand(
  line: string,
): { command: RpcCommand } | { invalid: RpcCommandError } {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch (error) {
    return { invalid: { error: `invalid JSON: ${(error as Error).message}` } };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return {
      invalid: {
        error: `a command is one JSON object such as {"type":"get_state"}, got ${
          Array.isArray(data) ? "a list" : JSON.stringify(data)
        }`,
      },
    };
  }
  const record = data as Record<string, unknown>;
  const id = idSchema.safeParse(record.id).data;
  const known = { ...(id === undefined ? {} : { id }) };
  const type = record.type;
  if (typeof type !== "string" || !RPC_COMMAND_TYPES.includes(type as RpcCommandType)) {
    return { invalid: { ...known, error: unknownTypeMessage(type) } };
  }
  const parsed = commandSchema.safeParse(record, { reportInput: true });
  if (parsed.success) return { command: parsed.data };
  const problems = parsed.error.issues.slice(0, 5).map((issue) =>
    describeCommandIssue(type as RpcCommandType, issue)
  );
  return {
    invalid: {
      ...known,
      command: type as RpcCommandType,
      error: `${type}: ${problems.join("; ")}`,
    },
  };
}

function unknownTypeMessage(type: unknown): string {
  const list = RPC_COMMAND_TYPES.join(", ");
  if (type === undefined) return `missing "type": name a command (${list})`;
  if (typeof type !== "string") return `"type" must be a command's name (${list})`;
  const near = didYouMean(type, RPC_COMMAND_TYPES);
  return `unknown command ${JSON.stringify(type)}${
    near ? ` (did you mean "${near}"?)` : ""
  }; commands: ${list}`;
}

/** An unknown field is named with the nearest known one (`mesage`: did you mean `message`?). */
function describeCommandIssue(type: RpcCommandType, issue: z.core.$ZodIssue): string {
  if (issue.code !== "unrecognized_keys") return describeIssue(issue);
  // Unknown fields are found on the command itself or on one of its images.
  const schema = commandSchemas.find((s) => s.shape.type.value === type)!;
  const known = Object.keys(issue.path.length === 0 ? schema.shape : imageFields.shape);
  const where = issue.path.length === 0 ? "" : `${describePath(issue.path)}: `;
  return issue.keys.map((key) => {
    const near = didYouMean(key, known);
    return `${where}unknown field ${JSON.stringify(key)}${
      near ? ` (did you mean "${near}"?)` : ""
    }`;
  }).join("; ");
}

/** `images[0]`. */
function describePath(path: readonly PropertyKey[]): string {
  return path.map((segment) => typeof segment === "number" ? `[${segment}]` : String(segment))
    .join("").replace(/^\[/, "[");
}
