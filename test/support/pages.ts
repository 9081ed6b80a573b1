/** Reading a paged list as a client does. */

/** A page as the API answers it. */
export interface Page<T> {
  data: T[];
  iterator: string | null;
  done: boolean;
}

/** Every page of a list, as a client following `iterator` until `done` reads it. */
export async function pages<T>(
  list: (iterator: string | null) => Promise<Page<T>>,
): Promise<T[][]> {
  const all: T[][] = [];
  let iterator: string | null = null;
  for (let n = 0; n < 20; n++) {
    const page = await list(iterator);
    all.push(page.data);
    if (page.done) return all;
    iterator = page.iterator;
  }
  throw new Error("the list never reported done");
}
