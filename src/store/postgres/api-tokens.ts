/** API tokens: who may call the HTTP API, stored as hashes. */
import type pg from "pg";
import type { ApiToken } from "../../domain/types.js";
import { API_TOKEN_COLUMNS, apiTokenFromRow, apiTokenValues } from "../api-token-row.js";
import type { ApiTokenQuery, KeptAnswer, Page } from "../port.js";
import { exec, one, Params, type Conn } from "./database.js";
import { withKeptAnswer } from "./kept-answer.js";
import { paginate } from "./pagination.js";

/** Token operations; `PostgresStore` wraps each call in its error mapping. */
export class ApiTokens {
  constructor(private readonly pool: pg.Pool) {}

  create(token: ApiToken, kept?: KeptAnswer<ApiToken>): Promise<ApiToken> {
    const write = async (c: Conn) => {
      await exec(
        c,
        `INSERT INTO api_tokens (${API_TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        apiTokenValues(token),
      );
      return token;
    };
    return withKeptAnswer(this.pool, write, kept);
  }

  async findByHash(hash: string): Promise<ApiToken | null> {
    const row = await one(this.pool, "SELECT * FROM api_tokens WHERE hash = $1", [hash]);
    return row ? apiTokenFromRow(row) : null;
  }

  list(q: ApiTokenQuery): Promise<Page<ApiToken>> {
    const p = new Params();
    const where: string[] = [];
    if (q.appId !== undefined) where.push(`app_id = ${p.add(q.appId)}`);
    if (q.unrevoked) where.push("revoked_at IS NULL");
    return paginate(
      this.pool,
      { select: "SELECT * FROM api_tokens", where, params: p },
      "id",
      q,
      apiTokenFromRow,
      (t) => t.id,
    );
  }

  async revoke(id: string, now: number): Promise<ApiToken | null> {
    const row = await one(
      this.pool,
      `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING *`,
      [now, id],
    );
    return row ? apiTokenFromRow(row) : null;
  }
}
