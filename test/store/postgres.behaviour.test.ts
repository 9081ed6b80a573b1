import { PostgresStore } from "../../src/store/postgres/store.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { storeBehaviour } from "./store.behaviour.js";

// Each test gets its own schema in the test database, dropped afterwards. No PostgreSQL, no pass:
// opening the store fails the test.
storeBehaviour(
  "postgres",
  async (limits) => {
    const schema = freshSchemaName();
    let store: PostgresStore;
    try {
      store = await PostgresStore.open({
        connectionString: TEST_DATABASE_URL,
        schema,
        poolSize: 5,
        limits,
      });
    } catch (err) {
      await dropSchema(schema).catch(() => undefined);
      throw err;
    }
    return {
      store,
      cleanup: async () => {
        await store.close();
        await dropSchema(schema);
      },
    };
  },
  { shared: true },
);
