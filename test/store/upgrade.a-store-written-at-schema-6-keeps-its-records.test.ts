/**
 * A hookline upgraded in place opens a store an older one wrote. The store is built here as
 * hookline wrote it at schema version 6: that version's migrations (numbered and append-only, so
 * they are the schema as it was), then rows as that version wrote them, with the values it sealed
 * under a key (copied from a store it made). The current store must migrate it, read every record
 * and open every sealed value, and go on delivering what was pending.
 */
import Database from "better-sqlite3";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { FieldCipher } from "../../src/security/cipher.js";
import type { Store } from "../../src/store/port.js";
import { migrate as migratePostgres } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS as POSTGRES_MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { migrate as migrateSqlite } from "../../src/store/sqlite/database.js";
import { MIGRATIONS as SQLITE_MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

/** The key the old hookline sealed with (64 hex digits "a"): key id a7664f5b. */
const KEY = Buffer.alloc(32, 0xaa);
const T0 = 1_796_565_984_000;

const APP = "app_01M95TTRV36EZ0D98GY9QG4491";
const SEALED_EP = "ep_01M95TTRVZ22GA1PQJR6ATTPE2";
const PLAIN_EP = "ep_01M95TTRWS75R2TJF9M590RDWJ";
const MSG = "msg_01M95TTRX3FVHCAN74Z1PW0BAM";
const PENDING = "dlv_01M95TTRX3FVHCAN74Z1PW0BAQ";
const DEAD = "dlv_01M95TTRX3FVHCAN74Z1PW0BAP";
const DLQ = "dlq_01M95TTS0A7C2XDG36JMJ1YVA5";
const ATTEMPT = "atmpt_01M95TTRXY754ZRAZ2A93R6GBY";
const PORTAL_TOKEN = "tok_01M95TVEM0CJFJXE2P8YV74R0A";
const PORTAL_HASH = "b789d41ac629ddcbfb9c7f31812e76db2abe1a6d43344ec0b30af6572bed6c8d";
const IDEMPOTENCY_SCOPE = `admin:POST /api/v1/app/${APP}/msg`;
const FINGERPRINT = "5fed64f5c182d730ef2933e74fd245464a25826a470e6af8baf06a49f7d4dcd1";

// Values hookline sealed at schema 6 with KEY, as they were in its database.
const SEALED_SECRETS =
  '"enc:v1:a7664f5b:2ZYjwatm9PrCAU9otnzH4h9fCq0OFjoLE20FRmstnEb8S0HixUYfSSgJ1bwpkNKd/V+2MlNRHSZ4Fgh5qVxAdk5AEQvpeA+ab+WjpnL71rkbnW3z7rkhsVSavEMgQh1gkxHLIp4q8RRI0+tYEzUhsp46LyuMsxCujDOK8aulEZBqrB4It8uV9KpCjNrBXlrzHslyQ1JfAd4J6ZRS0IUCNuqfq7NDs1vNnn4t"';
const SEALED_HEADERS =
  '"enc:v1:a7664f5b:5e6BeECvceyoadBEdPXJdTJZCJmRK03g/w6smV8QVgQcqpiFT5X71OTTXlGo"';
const SEALED_PAYLOAD = Buffer.from(
  "00686C656E63316137363634663562FA6B1562EB37FC4EA38249C641C2512E6B0123DBFA95447E67A6AFB2D55AC3ED4D4E52144CAF1236DA37F73A228C3636DB1994903E0995DB607406D21D",
  "hex",
);
const PAYLOAD = '{"n":0,"secret":"payload-secret"}';
// Idempotency answers were kept unsealed at schema 6, key or no key.
const ANSWER = `{"id":"${MSG}","eventType":"order.created","eventId":"evt-0","channels":null,"tags":null,"timestamp":"2026-12-06T14:06:24.163Z","payload":${PAYLOAD}}`;

type Row = Record<string, string | number | boolean | Buffer | null>;

/** The rows hookline wrote at schema 6, table by table, in the order they may be inserted. */
const OLD_ROWS: [string, Row[]][] = [
  [
    "applications",
    [
      {
        id: APP,
        uid: "acme",
        name: "Acme",
        rate_limit: 50,
        metadata: '{"team":"x"}',
        delivery_policy: null,
        created_at: T0,
        updated_at: T0,
      },
    ],
  ],
  [
    "endpoints",
    [
      {
        id: SEALED_EP,
        app_id: APP,
        uid: "ok",
        url: "https://receiver.example/ok",
        description: "ok one",
        version: 1,
        disabled: false,
        disabled_reason: null,
        filter_types: null,
        channels: null,
        headers: SEALED_HEADERS,
        metadata: "{}",
        rate_limit: 5,
        secrets: SEALED_SECRETS,
        delivery_policy: null,
        created_at: T0,
        updated_at: T0,
      },
      {
        // Written before the key was set: plaintext JSON.
        id: PLAIN_EP,
        app_id: APP,
        uid: "down",
        url: "https://receiver.example/down",
        description: "down",
        version: 1,
        disabled: false,
        disabled_reason: null,
        filter_types: null,
        channels: null,
        headers: '{"Authorization":"Bearer s3cr3t"}',
        metadata: "{}",
        rate_limit: null,
        secrets: '{"current":"whsec_tjxTBLRHr+iMwgvi3C6OrZLhlFh2pB9q","previous":[]}',
        delivery_policy: '{"retry":{"delays":[8,8,8],"window":3600}}',
        created_at: T0,
        updated_at: T0,
      },
    ],
  ],
  [
    "messages",
    [
      {
        id: MSG,
        app_id: APP,
        event_type: "order.created",
        event_id: "evt-0",
        channels: null,
        tags: null,
        payload: SEALED_PAYLOAD,
        created_at: T0 + 163,
      },
    ],
  ],
  [
    "deliveries",
    [
      {
        id: PENDING,
        app_id: APP,
        message_id: MSG,
        endpoint_id: PLAIN_EP,
        state: "pending",
        origin: "message",
        attempt_count: 1,
        next_attempt_at: T0 + 8_190,
        first_attempt_at: T0 + 190,
        last_attempt_at: T0 + 190,
        last_delay_ms: 8_000,
        lease_until: null,
        created_at: T0 + 163,
        dead_letter_id: null,
      },
      {
        id: DEAD,
        app_id: APP,
        message_id: MSG,
        endpoint_id: SEALED_EP,
        state: "dead",
        origin: "message",
        attempt_count: 1,
        next_attempt_at: null,
        first_attempt_at: T0 + 189,
        last_attempt_at: T0 + 189,
        last_delay_ms: null,
        lease_until: null,
        created_at: T0 + 163,
        dead_letter_id: null,
      },
    ],
  ],
  [
    "attempts",
    [
      {
        id: ATTEMPT,
        delivery_id: PENDING,
        app_id: APP,
        message_id: MSG,
        endpoint_id: PLAIN_EP,
        at: T0 + 190,
        trigger: "first",
        url: "https://receiver.example/down",
        status: null,
        error: "connection_refused",
        error_detail: "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:21803",
        duration_ms: 21,
        response_snippet: "",
        outcome: "retryable",
      },
    ],
  ],
  [
    "dead_letters",
    [
      {
        id: DLQ,
        delivery_id: DEAD,
        app_id: APP,
        endpoint_id: SEALED_EP,
        message_id: MSG,
        event_id: "evt-0",
        event_type: "order.created",
        failure_class: "exhausted",
        reason: "all 1 attempts failed; last: HTTP 500",
        final_status: 500,
        final_error: null,
        signature_headers: `{"webhook-id":"${MSG}","webhook-timestamp":"1796565984","webhook-signature":"v1,SMQZexhYRbG/MmWgT0jvfNKcSWFaH0gsxttcxY/dswk="}`,
        first_attempt_at: T0 + 189,
        last_attempt_at: T0 + 189,
        state: "open",
        replay_count: 0,
        created_at: T0 + 189,
        updated_at: T0 + 189,
        failed_replays: 0,
        abandon_after: null,
      },
    ],
  ],
  [
    "circuits",
    [
      {
        endpoint_id: PLAIN_EP,
        state: "open",
        since: T0 + 437,
        reason: "5 consecutive failures within 60 s; last: connection_refused",
        next_probe_at: T0 + 300_437,
        reopen_count: 0,
      },
    ],
  ],
  [
    "idempotency_keys",
    [
      {
        scope: IDEMPOTENCY_SCOPE,
        key: "idem-0",
        fingerprint: FINGERPRINT,
        state: "done",
        status: 202,
        body: ANSWER,
        locked_until: T0 + 60_161,
        expires_at: T0 + 86_400_161,
      },
    ],
  ],
  [
    "api_tokens",
    [
      {
        id: PORTAL_TOKEN,
        name: "portal",
        scope: "app",
        app_id: APP,
        hash: PORTAL_HASH,
        created_at: T0 + 22_400,
        revoked_at: null,
        expires_at: T0 + 604_822_400,
      },
    ],
  ],
];

interface OldStore {
  /** Builds the schema at version 6 and writes OLD_ROWS into it. */
  write(): Promise<void>;
  /** Opens it with the current store (which migrates it), with the key it was sealed with. */
  open(): Promise<Store>;
  ledger(): Promise<number[]>;
  cleanup(): Promise<void>;
}

const columns = (row: Row) => Object.keys(row).join(", ");

function sqliteOld(dir: string): OldStore {
  const path = join(dir, "hookline.db");
  return {
    async write() {
      const db = new Database(path);
      try {
        migrateSqlite(
          db,
          SQLITE_MIGRATIONS.filter((m) => m.version <= 6),
        );
        for (const [table, rows] of OLD_ROWS) {
          for (const row of rows) {
            const values = Object.values(row).map((v) => (typeof v === "boolean" ? Number(v) : v));
            db.prepare(
              `INSERT INTO ${table} (${columns(row)}) VALUES (${values.map(() => "?").join(", ")})`,
            ).run(...values);
          }
        }
      } finally {
        db.close();
      }
    },
    open: async () =>
      new SqliteStore({ path, synchronous: "normal", cipher: new FieldCipher(KEY) }),
    async ledger() {
      const db = new Database(path, { readonly: true });
      try {
        const rows = db.prepare("SELECT version FROM hookline_migrations ORDER BY version").all();
        return (rows as { version: number }[]).map((r) => r.version);
      } finally {
        db.close();
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

function postgresOld(schema: string): OldStore {
  return {
    async write() {
      // On the schema's path, as hookline's connections are: its triggers name tables unqualified.
      const pool = new pg.Pool({
        connectionString: TEST_DATABASE_URL,
        max: 1,
        options: `-c search_path=${schema}`,
      });
      try {
        await migratePostgres(
          pool,
          schema,
          POSTGRES_MIGRATIONS.filter((m) => m.version <= 6),
        );
        for (const [table, rows] of OLD_ROWS) {
          for (const row of rows) {
            const values = Object.values(row);
            await pool.query(
              `INSERT INTO ${table} (${columns(row)})
               VALUES (${values.map((_, i) => `$${i + 1}`).join(", ")})`,
              values,
            );
          }
        }
      } finally {
        await pool.end();
      }
    },
    open: () =>
      PostgresStore.open({
        connectionString: TEST_DATABASE_URL,
        schema,
        poolSize: 2,
        cipher: new FieldCipher(KEY),
      }),
    async ledger() {
      const rows = await adminQuery(
        `SELECT version FROM ${schema}.hookline_migrations ORDER BY version`,
      );
      return rows.map((r) => Number(r.version));
    },
    cleanup: () => dropSchema(schema),
  };
}

describe.each(["sqlite", "postgres"] as const)(
  "a store hookline wrote at schema 6, on %s",
  (kind) => {
    let old: OldStore | undefined;
    let store: Store | undefined;

    afterEach(async () => {
      await store?.close();
      await old?.cleanup();
      store = old = undefined;
    });

    const upgraded = async (): Promise<Store> => {
      old =
        kind === "sqlite"
          ? sqliteOld(await mkdtemp(join(tmpdir(), "hookline-upgrade-")))
          : postgresOld(freshSchemaName());
      await old.write();
      store = await old.open();
      return store;
    };

    it("is migrated to every version and its sealed values still open", async () => {
      const s = await upgraded();
      const migrations = kind === "sqlite" ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
      expect(await old!.ledger()).toEqual(migrations.map((m) => m.version));
      await s.verifySealing();

      const sealed = await s.getEndpoint(SEALED_EP);
      expect(sealed?.headers).toEqual({ "X-Custom": "v1" });
      expect(sealed?.secrets).toEqual({
        current: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        previous: [
          { secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", expiresAt: 1_796_652_384_139 },
        ],
      });
      const plain = await s.getEndpoint(PLAIN_EP);
      expect(plain?.headers).toEqual({ Authorization: "Bearer s3cr3t" });
      expect(plain?.deliveryPolicy).toEqual({ retry: { delays: [8, 8, 8], window: 3600 } });

      const msg = await s.findMessage(APP, "evt-0");
      expect(msg?.payload.toString()).toBe(PAYLOAD);
      expect(msg?.deliverAt).toBeNull();
      const record = await s.getDeadLetterRecord(DLQ);
      expect(record?.payload?.toString()).toBe(PAYLOAD);
      expect(record?.state).toBe("open");
    });

    it("sends what was pending, and its other records read as they were", async () => {
      const s = await upgraded();
      const now = T0 + 10_000;
      const claimed = await s.claimDue({
        now,
        limit: 10,
        excludeEndpoints: [],
        leaseUntil: now + 60_000,
      });
      expect(claimed.map((d) => [d.id, d.attemptCount, d.payload.toString()])).toEqual([
        [PENDING, 1, PAYLOAD],
      ]);

      expect(await s.getCircuit(PLAIN_EP)).toMatchObject({
        state: "open",
        nextProbeAt: T0 + 300_437,
      });
      expect(await s.findAttempt(APP, ATTEMPT)).toMatchObject({
        deliveryId: PENDING,
        error: "connection_refused",
        outcome: "retryable",
      });
      expect((await s.getDeadLetter(DLQ))?.failureClass).toBe("exhausted");

      // A client repeating its request after the upgrade gets the answer it got before.
      expect(
        await s.beginIdempotent({
          scope: IDEMPOTENCY_SCOPE,
          key: "idem-0",
          owner: "idk_after_upgrade",
          fingerprint: FINGERPRINT,
          now,
          lockMs: 60_000,
          ttlMs: 86_400_000,
        }),
      ).toEqual({ kind: "replay", status: 202, body: ANSWER });

      // A portal link handed out before the upgrade keeps working until it expires.
      expect(await s.findApiTokenByHash(PORTAL_HASH)).toMatchObject({
        id: PORTAL_TOKEN,
        scope: "app",
        appId: APP,
        expiresAt: T0 + 604_822_400,
      });
    });
  },
);
