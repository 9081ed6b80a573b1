import { filteredOut } from "../../domain/fan-out.js";
import type { NewMessage } from "../port.js";
import type { Row } from "./rows.js";

/** An enabled endpoint a message may fan out to, its filters parsed once. */
export interface FanOutTarget {
  id: string;
  /** Event types it wants; null or empty: every type. */
  types: string[] | null;
  /** Channels it wants; null or empty: every message. */
  channels: string[] | null;
  /** When an open circuit probes next; new deliveries wait until then. 0 when not open. */
  probeAt: number;
}

/** A `fanOutTargets` row as a target. */
export function fanOutTarget(row: Row): FanOutTarget {
  return {
    id: String(row.id),
    types: row.filter_types == null ? null : (JSON.parse(String(row.filter_types)) as string[]),
    channels: row.channels == null ? null : (JSON.parse(String(row.channels)) as string[]),
    // An open circuit holds new deliveries until its probe, so they spend nothing meanwhile.
    probeAt: row.circuit_state === "open" ? Number(row.next_probe_at ?? 0) : 0,
  };
}

/** Whether a fan-out target wants the message (see domain/fan-out.ts). */
export function matches(ep: FanOutTarget, msg: NewMessage): boolean {
  if (msg.onlyEndpointId !== undefined && ep.id !== msg.onlyEndpointId) return false;
  return filteredOut(ep.types, ep.channels, msg) === null;
}
