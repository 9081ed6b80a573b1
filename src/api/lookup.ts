/** Finding the resources a path names, or answering 404. */
import type { Application, Endpoint, Message } from "../domain/types.js";
import { NotFoundError } from "../errors.js";
import type { Store } from "../store/port.js";

/** The application with this id or uid. */
export async function requireApp(store: Store, idOrUid: string): Promise<Application> {
  const app = await store.findApplication(idOrUid);
  if (!app) throw new NotFoundError(`application ${idOrUid}`);
  return app;
}

/** The endpoint of `app` with this id or uid. */
export async function requireEndpoint(
  store: Store,
  app: Application,
  idOrUid: string,
): Promise<Endpoint> {
  const ep = await store.findEndpoint(app.id, idOrUid);
  if (!ep) throw new NotFoundError(`endpoint ${idOrUid}`);
  return ep;
}

/** The message of `app` with this id or eventId. */
export async function requireMessage(
  store: Store,
  app: Application,
  idOrEventId: string,
): Promise<Message> {
  const msg = await store.findMessage(app.id, idOrEventId);
  if (!msg) throw new NotFoundError(`message ${idOrEventId}`);
  return msg;
}
