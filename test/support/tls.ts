/**
 * HTTPS receivers for tests: a self-signed certificate for 127.0.0.1 (and localhost), good for a
 * century, and a way to have hookline's connections accept it while a test runs.
 */
import { readFileSync } from "node:fs";

const here = new URL("./tls/", import.meta.url);

/** The key and certificate a test's HTTPS receiver serves. */
export const receiverCertificate = {
  key: readFileSync(new URL("receiver-key.pem", here)),
  cert: readFileSync(new URL("receiver-cert.pem", here)),
};

/**
 * Has this process's TLS connections, and those of sender threads started until the returned
 * function is called, accept any certificate: hookline's sender takes no certificate authority
 * of its own, and Node reads NODE_EXTRA_CA_CERTS only as it starts. Call the returned function
 * once the test is done (test files share a process).
 */
export function acceptingAnyCertificate(): () => void {
  const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
  return () => {
    if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
  };
}
