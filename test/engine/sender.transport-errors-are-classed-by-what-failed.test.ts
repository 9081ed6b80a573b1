import { afterEach, describe, expect, it } from "vitest";
import { classifyError, HttpSender } from "../../src/engine/sender.js";

/** An error shaped as Node raises it (code, syscall), as the sockets undici uses report it. */
const nodeError = (code: string, syscall: string) =>
  Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

describe("transport errors are classed by what failed", () => {
  let sender: HttpSender | undefined;
  afterEach(async () => {
    await sender?.close();
    sender = undefined;
  });

  it("every failure of the name look-up is dns, whatever getaddrinfo's code", () => {
    for (const code of ["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME"]) {
      expect(classifyError(nodeError(code, "getaddrinfo")), code).toBe("dns");
    }
    // EINVAL is what getaddrinfo answers for a name too long to look up.
    expect(classifyError(nodeError("EINVAL", "getaddrinfo"))).toBe("dns");
    // The same code from another call is no DNS failure.
    expect(classifyError(nodeError("EINVAL", "connect"))).toBe("network");
  });

  it("a host name too long to look up is a dns error", async () => {
    sender = new HttpSender();
    const host = ["b", "c", "d", "e"].map((c) => c.repeat(63)).join(".");
    const r = await sender.send({
      url: `http://${host}.example/hook`,
      headers: {},
      body: Buffer.from("{}"),
      timeoutMs: 5_000,
    });
    expect(r).toMatchObject({ status: null, error: "dns" });
  });
});
