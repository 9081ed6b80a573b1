import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { UnauthorizedError } from "../errors.js";

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/**
 * Checks `Authorization: Bearer <token>` against the admin token. Both sides are hashed first so
 * the comparison takes the same time whatever the token's length or content.
 */
export function makeAuthCheck(adminToken: string): (request: FastifyRequest) => void {
  const expected = digest(adminToken);
  return (request) => {
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError("send Authorization: Bearer <admin token>");
    if (!timingSafeEqual(digest(match[1]!), expected)) {
      throw new UnauthorizedError("the token is not valid");
    }
  };
}

/**
 * Who made an authenticated request, as the DLQ's audit trail records it. There is one admin
 * token today, so every operator is "admin"; named tokens will give their own names.
 */
export function actorOf(_request: FastifyRequest): string {
  return "admin";
}
