/**
 * The CLI's HTTP client for a running hookline: JSON in and out, the admin token as a bearer
 * token, and the API's error answers turned into one readable message.
 */
import type { Agent } from "undici";
import type { Command } from "commander";
import { ConfigError, HooklineError } from "../errors.js";

/** Where hookline runs and how to reach it; resolved by the entry point. */
export interface Connection {
  url: string;
  token: string;
}

/** The URL the client commands call when neither --url nor HOOKLINE_URL gives one. */
export const DEFAULT_URL = "http://127.0.0.1:8080";

/** The client commands' two inputs, each given by its option or by its setting. */
const GIVEN_BY = {
  url: { option: "--url", setting: "HOOKLINE_URL" },
  token: { option: "--token", setting: "HOOKLINE_TOKEN" },
} as const;

/**
 * Where the operator gives `input`, as every message that blames it ends: "(--url or
 * HOOKLINE_URL)", with `note` after a colon when there is more to say.
 */
export function givenBy(input: keyof typeof GIVEN_BY, note?: string): string {
  const { option, setting } = GIVEN_BY[input];
  return `(${option} or ${setting}${note ? `: ${note}` : ""})`;
}

/** Adds --url and --token, the options every client command takes, to `cmd`. */
export function withConnectionOptions(cmd: Command): Command {
  return cmd
    .option("--url <url>", `hookline's URL (${GIVEN_BY.url.setting}, default ${DEFAULT_URL})`)
    .option("--token <token>", `the admin token (${GIVEN_BY.token.setting})`);
}

/** The connection from the options given, else the entry point's settings; a token is needed. */
export function connectionOf(
  given: Partial<Connection>,
  settings: Partial<Connection>,
): Connection {
  const token = given.token ?? settings.token;
  if (!token) throw new ConfigError(`give the admin token ${givenBy("token")}`);
  return { url: given.url ?? settings.url ?? DEFAULT_URL, token };
}

/** The option that set each API field (`query.limit` → `--limit`), to name it in a refusal. */
export type OptionNames = Record<string, string>;

/** fetch's own wait for an answer. */
const DEFAULT_ANSWER_WITHIN_MS = 300_000;

/** Calls the API; throws HooklineError("api", …) with the server's reason on a non-2xx answer. */
export class ApiClient {
  private readonly base: string;
  /** Made at the first call, which loads undici: a command that never calls does not wait for it. */
  private dispatcher: Agent | null = null;
  private readonly answerWithinMs: number;

  constructor(
    private readonly connection: Connection,
    private readonly names: OptionNames = {},
    /**
     * How long to wait for an answer's headers; null: however long it takes (a failure drill,
     * whose steps may each take up to `HOOKLINE_DRILL_STEP_TIMEOUT_SECONDS`).
     */
    answerWithinMs: number | null = DEFAULT_ANSWER_WITHIN_MS,
  ) {
    this.answerWithinMs = answerWithinMs ?? 0;
    this.base = connection.url.replace(/\/+$/, "");
    // `127.0.0.1:8080`, as curl takes it, would fail as "cannot reach": wrong where it is not.
    const protocol = URL.canParse(this.base) ? new URL(this.base).protocol : "";
    if (protocol !== "http:" && protocol !== "https:") {
      const url = connection.url === "" ? "an empty URL" : connection.url;
      throw new HooklineError("api", `${url} is not an http:// or https:// URL ${givenBy("url")}`);
    }
  }

  async get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, v);
    const suffix = q.size ? `?${q.toString()}` : "";
    return (await this.call("GET", `${path}${suffix}`)).body as T;
  }

  /** A GET's answer, with its text as it came for what must be shown byte for byte. */
  async getWithText<T>(path: string): Promise<{ body: T; text: string }> {
    const answer = await this.call("GET", path);
    return { body: answer.body as T, text: answer.text };
  }

  /**
   * `wrongProcess`: an error status this route answers only from a process of a fleet that
   * cannot do this (a drill's 409 from an API-only one), whose message then names --url too.
   */
  async post<T>(
    path: string,
    body?: unknown,
    wrongProcess?: number,
  ): Promise<{ status: number; body: T }> {
    const answer = await this.call("POST", path, body ?? {}, wrongProcess);
    return { status: answer.status, body: answer.body as T };
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    wrongProcess?: number,
  ): Promise<{ status: number; body: unknown; text: string }> {
    const { Agent, fetch: undiciFetch } = await import("undici");
    this.dispatcher ??= new Agent({ headersTimeout: this.answerWithinMs, bodyTimeout: 0 });
    let res: Response;
    try {
      res = (await undiciFetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.connection.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: this.dispatcher,
      })) as unknown as Response;
    } catch (err) {
      throw new HooklineError(
        "api",
        `cannot reach hookline at ${this.base} ${givenBy("url")}: ${whyNot(err)}`,
        { cause: err },
      );
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // hookline answers JSON, its errors too: this came from another server on that address
      // (the default port is a common one) or a proxy's error page, of no use as a message.
      const type = res.headers.get("content-type")?.split(";")[0] || "an empty body";
      throw new HooklineError(
        "api",
        `${res.status} ${res.statusText} from ${this.base}, with ${type} rather than hookline's JSON: is it another service, or a proxy in front of hookline? ${givenBy("url")}`,
      );
    }
    if (!res.ok) {
      const reason = reasonOf(parsed, this.names);
      const blame = this.inputToBlame(res, reason, wrongProcess);
      throw new HooklineError("api", `${res.status}: ${reason}${blame}`);
    }
    return { status: res.status, body: parsed, text };
  }

  /**
   * The input an error answer is about, when it is one the operator gave one of two ways: a
   * refused token, a URL under which hookline has no route (the API's own URL, which serve's
   * banner prints too, given for hookline's address), or a URL naming a process that cannot do
   * what was asked.
   */
  private inputToBlame(res: Response, reason: string, wrongProcess?: number): string {
    if (res.status === 401) return ` ${givenBy("token")}`;
    if (res.status === wrongProcess) return ` ${givenBy("url")}`;
    if (res.status !== 404 || !reason.startsWith("no route for ")) return "";
    const apiPath = /\/api\/v1$/.test(this.base) ? "hookline's address, without /api/v1" : "";
    return ` ${givenBy("url", apiPath)}`;
  }
}

/**
 * Why fetch got no answer: its own error says only "fetch failed", the reason is its cause. A
 * certificate the system does not trust, a name that does not resolve and a refused connection
 * send the operator to different places; "cannot reach" alone sent them all to the network.
 */
function whyNot(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  if (!(e instanceof Error)) return String(e);
  // OpenSSL's message is a line of its internals (https:// to a plain-HTTP port reads
  // "…:ssl3_get_record:wrong version number:…"); its reason is the part that says something.
  const { code, reason } = e as Error & { code?: unknown; reason?: unknown };
  if (typeof code === "string" && code.startsWith("ERR_SSL_") && typeof reason === "string") {
    return `TLS failed: ${reason}`;
  }
  return e.message.trim();
}

/**
 * The `detail` of an error answer, with every field of a 422 named: by the option that set it
 * when there is one (an item of a list, `body.ids.1`, by the list's option).
 */
function reasonOf(body: unknown, names: OptionNames): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((p: { loc?: unknown[]; msg?: string }) => {
        const loc = (p.loc ?? []).map(String);
        return `${names[loc.slice(0, 2).join(".")] ?? loc.join(".")}: ${p.msg}`;
      })
      .join("; ");
  }
  return typeof body === "string" ? body : JSON.stringify(body);
}
