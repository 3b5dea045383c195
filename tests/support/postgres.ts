import { join } from "node:path";
import postgres from "postgres";

/** A private PostgreSQL cluster on 127.0.0.1, in a temp directory. */
export interface PostgresCluster {
  /** Connection URL of the `postgres` maintenance database. */
  readonly adminUrl: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Drops a database made by `createDatabase`. */
  dropDatabase(url: string): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

/** Options for {@linkcode startPostgres}. */
export interface StartPostgresOptions {
  /** Keep `fsync` on (benchmarks); tests turn it off for speed, since they never cut power. */
  fsync?: boolean;
}

const SKIP_REASON = "skipped: no PostgreSQL binaries under /usr/lib/postgresql";

/**
 * The newest `/usr/lib/postgresql/<version>/bin` holding `initdb` and `pg_ctl`.
 *
 * @returns The directory, or `null` when PostgreSQL is not installed.
 */
export function findPostgresBin(): string | null {
  let versions: string[];
  try {
    versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((entry) => entry.name);
  } catch {
    return null;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join("/usr/lib/postgresql", version, "bin");
    if (["initdb", "pg_ctl", "postgres"].every((tool) => exists(join(bin, tool)))) return bin;
  }
  return null;
}

/**
 * Whether PostgreSQL tests can run; prints the skip reason when not.
 *
 * @returns True when binaries exist.
 */
export function postgresAvailable(): boolean {
  const bin = findPostgresBin();
  if (!bin) console.log(SKIP_REASON);
  return bin !== null;
}

/**
 * Creates a cluster in a temp directory and starts it on a free loopback
 * port (its unix socket also in the temp directory). As root, the server
 * runs as the `postgres` user, since PostgreSQL refuses to run as root.
 *
 * @param options Durability settings.
 * @returns The running cluster.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(SKIP_REASON);
  const root = await Deno.makeTempDir({ prefix: "panto-pg-" });
  const runAs = Deno.uid() === 0 ? await systemUser("postgres") : null;
  if (runAs) await Deno.chown(root, runAs.uid, runAs.gid);
  const data = join(root, "data");
  const port = freePort();
  const run = (tool: string, ...args: string[]) =>
    command(runAs ? "postgres" : null, join(bin, tool), args);
  try {
    await run(
      "initdb",
      "-D",
      data,
      "-U",
      "panto",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    );
    const settings = [
      "-c listen_addresses=127.0.0.1",
      `-c port=${port}`,
      `-c unix_socket_directories=${root}`,
      `-c fsync=${options.fsync ? "on" : "off"}`,
      "-c max_connections=50",
    ];
    await run(
      "pg_ctl",
      "-D",
      data,
      "-l",
      join(root, "server.log"),
      "-o",
      settings.join(" "),
      "-w",
      "start",
    );
  } catch (error) {
    await Deno.remove(root, { recursive: true }).catch(() => {});
    throw error;
  }
  const url = (database: string) => `postgres://panto@127.0.0.1:${port}/${database}`;
  let counter = 0;
  const admin = async (statement: string) => {
    const sql = postgres(url("postgres"), { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(statement);
    } finally {
      await sql.end();
    }
  };
  return {
    adminUrl: url("postgres"),
    async createDatabase() {
      const name = `panto_test_${++counter}`;
      await admin(`CREATE DATABASE ${name}`);
      return url(name);
    },
    async dropDatabase(databaseUrl: string) {
      const name = new URL(databaseUrl).pathname.slice(1);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
    async stop() {
      await run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop").catch(() => {});
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function command(user: string | null, program: string, args: string[]): Promise<void> {
  const [cmd, cmdArgs] = user
    ? [runuserPath(), ["-u", user, "--", program, ...args]]
    : [program, args];
  const output = await new Deno.Command(cmd, { args: cmdArgs, stdout: "piped", stderr: "piped" })
    .output();
  if (!output.success) {
    const text = new TextDecoder().decode(output.stderr) || new TextDecoder().decode(output.stdout);
    throw new Error(`${program} ${args.join(" ")} failed (exit ${output.code}): ${text.trim()}`);
  }
}

/** Debian keeps runuser in /usr/sbin, which a non-login PATH may lack. */
function runuserPath(): string {
  const found = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find(exists);
  return found ?? "runuser";
}

async function systemUser(name: string): Promise<{ uid: number; gid: number }> {
  const passwd = await Deno.readTextFile("/etc/passwd");
  const line = passwd.split("\n").find((entry) => entry.startsWith(`${name}:`));
  if (!line) {
    throw new Error(
      `PostgreSQL refuses to run as root and there is no "${name}" user to run it as`,
    );
  }
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
