/**
 * A repeated eventId on PostgreSQL: the insert meets the first message's row and writes nothing,
 * then the first message is read to answer with. Retention can delete that message between the
 * two statements; the read then found nothing, and the post failed with a TypeError (a 500). The
 * eventId is free once retention took its message (docs/api.md), so the post makes a new one.
 * The deletion is put between the two by a trigger that fires after every insert into messages,
 * conflicting or not, and deletes messages as old as retention would.
 */
import { expect, it } from "vitest";
import { accept, anApplication, HOUR, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";

const cleanup = useCleanup();

it("makes a new message when retention took the first between the insert and the read", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const app = await store.createApplication(anApplication());
  const first = await accept(store, app.id, { eventId: "order-42", now: T0 });
  expect(first.created).toBe(true);

  const later = T0 + 31 * 24 * HOUR;
  await adminQuery(`
    CREATE FUNCTION ${schema}.retention_meanwhile() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM ${schema}.messages WHERE created_at < ${later - 30 * 24 * HOUR};
      RETURN NULL;
    END $$;
    CREATE TRIGGER retention_meanwhile AFTER INSERT ON ${schema}.messages
      FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.retention_meanwhile();`);

  const again = await accept(store, app.id, { eventId: "order-42", now: later });
  expect(again.created).toBe(true);
  expect(again.message.id).not.toBe(first.message.id);
  expect((await store.findMessage(app.id, "order-42"))?.id).toBe(again.message.id);
});
