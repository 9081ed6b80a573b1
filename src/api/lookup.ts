/** Finding the resources a path names, or answering 404. */
import type { Application, Endpoint, Message } from "../domain/types.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { newId } from "../ids.js";
import type { Store } from "../store/port.js";
import type { ApiDeps } from "./deps.js";
import { newApplication, type ApplicationInput } from "./schemas/application.js";
import { refuseReservedUid, refuseSystemApp } from "./system-guard.js";
import { parseWith, problemsOf, throwIfProblems, uidOf } from "./validation.js";

/** The application with this id or uid. */
export async function requireApp(store: Store, idOrUid: string): Promise<Application> {
  const app = await store.findApplication(idOrUid);
  if (!app) throw new NotFoundError(`application ${idOrUid}`);
  return app;
}

/** The application with this id or uid, for a change: 404 when none, 409 when it is hookline's. */
export async function requireChangeableApp(store: Store, idOrUid: string): Promise<Application> {
  const app = await requireApp(store, idOrUid);
  refuseSystemApp(app);
  return app;
}

/**
 * The application with this id or uid; when there is none and the body carries an `application`
 * (Svix's MessageIn and AppPortalAccessIn do), it is created with the path's value as its uid.
 */
export async function requireOrCreateApp(
  deps: Pick<ApiDeps, "store" | "clock">,
  idOrUid: string,
  input: ApplicationInput | null | undefined,
): Promise<Application> {
  const { store, clock } = deps;
  const found = await store.findApplication(idOrUid);
  if (found) return found;
  if (!input) throw new NotFoundError(`application ${idOrUid}`);
  // The path's app_id becomes the new application's uid: it must be one POST /api/v1/app takes.
  const problems = problemsOf(() => parseWith(uidOf("app"), idOrUid, ["path", "app_id"]));
  if (input.uid && input.uid !== idOrUid) {
    problems.push({
      loc: ["body", "application", "uid"],
      msg: "must match the app_id in the path",
      type: "value_error",
    });
  }
  throwIfProblems(problems);
  refuseReservedUid(idOrUid, ["path", "app_id"]);
  const now = clock.now();
  try {
    return await store.createApplication(
      newApplication(newId("app", now), { ...input, uid: idOrUid }, now),
    );
  } catch (err) {
    // Another request created it first: use theirs.
    const winner = err instanceof ConflictError ? await store.findApplication(idOrUid) : null;
    if (winner) return winner;
    throw err;
  }
}

/** Every endpoint of an application, a page of 250 at a time. */
export async function* endpointPages(store: Store, appId: string): AsyncGenerator<Endpoint[]> {
  for (let iterator: string | null = null, done = false; !done;) {
    const page = await store.listEndpoints(appId, { limit: 250, iterator });
    yield page.data;
    ({ iterator, done } = page);
  }
}

/**
 * The endpoint a path names (`app_id`, `endpoint_id`), for a change: 404 when either is missing,
 * 409 when its application is one of hookline's own (see system-guard.ts).
 */
export async function requireChangeableEndpoint(
  store: Store,
  params: Record<string, string>,
): Promise<Endpoint> {
  const app = await requireChangeableApp(store, params.app_id!);
  return requireEndpoint(store, app, params.endpoint_id!);
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
