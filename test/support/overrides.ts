/**
 * An object (a store, its coordination) with some of its members replaced for a test: a slowed
 * claim, a counted call, a held one. Every other member is the target's own, bound to it, so the
 * code under test cannot tell the two apart.
 */
export function withOverrides<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof T];
      const value: unknown = Reflect.get(t, prop, receiver);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}
