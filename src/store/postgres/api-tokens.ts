/** API tokens: who may call the HTTP API, stored as hashes. */
import type pg from "pg";
import type { ApiToken } from "../../domain/types.js";
import { API_TOKEN_COLUMNS, apiTokenFromRow, apiTokenValues } from "../api-token-row.js";
import { all, exec, one } from "./database.js";

/** Token operations; `PostgresStore` wraps each call in its error mapping. */
export class ApiTokens {
  constructor(private readonly pool: pg.Pool) {}

  async create(token: ApiToken): Promise<ApiToken> {
    await exec(
      this.pool,
      `INSERT INTO api_tokens (${API_TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      apiTokenValues(token),
    );
    return token;
  }

  async findByHash(hash: string): Promise<ApiToken | null> {
    const row = await one(this.pool, "SELECT * FROM api_tokens WHERE hash = $1", [hash]);
    return row ? apiTokenFromRow(row) : null;
  }

  async list(): Promise<ApiToken[]> {
    return (await all(this.pool, "SELECT * FROM api_tokens ORDER BY id")).map(apiTokenFromRow);
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
