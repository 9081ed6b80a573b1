/** API tokens: who may call the HTTP API, stored as hashes. */
import type { Database as Db, Statement } from "better-sqlite3";
import type { ApiToken } from "../../domain/types.js";
import { API_TOKEN_COLUMNS, apiTokenFromRow, apiTokenValues } from "../api-token-row.js";
import type { ApiTokenQuery, KeptAnswer, Page } from "../port.js";
import { withKeptAnswer } from "./kept-answer.js";
import { paginate } from "./pagination.js";
import type { Row } from "./rows.js";

/** Synchronous token operations; `SqliteStore` wraps each call in its error mapping. */
export class ApiTokens {
  constructor(
    private readonly db: Db,
    /** Keeps a keyed request's answer on its key (see kept-answer.ts). */
    private readonly keep: Statement,
  ) {}

  create(token: ApiToken, kept?: KeptAnswer<ApiToken>): ApiToken {
    const write = () => {
      this.db
        .prepare(`INSERT INTO api_tokens (${API_TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(...apiTokenValues(token));
      return token;
    };
    return withKeptAnswer(this.db, this.keep, write, kept);
  }

  findByHash(hash: string): ApiToken | null {
    const row = this.db.prepare("SELECT * FROM api_tokens WHERE hash = ?").get(hash) as
      Row | undefined;
    return row ? apiTokenFromRow(row) : null;
  }

  list(q: ApiTokenQuery): Page<ApiToken> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.appId !== undefined) {
      where.push("app_id = ?");
      params.push(q.appId);
    }
    if (q.unrevoked) where.push("revoked_at IS NULL");
    return paginate(
      this.db,
      { select: "SELECT * FROM api_tokens", where, params },
      "id",
      q,
      apiTokenFromRow,
      (t) => t.id,
    );
  }

  revoke(id: string, now: number): ApiToken | null {
    const row = this.db
      .prepare(
        `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING *`,
      )
      .get(now, id) as Row | undefined;
    return row ? apiTokenFromRow(row) : null;
  }
}
