/** Every page of the dashboard and the address it answers to. */
import { renderApps } from "./pages/apps.js";
import { renderDeadLetter, renderDlq } from "./pages/dlq.js";
import { renderEndpoint } from "./pages/endpoint.js";
import { renderEndpoints } from "./pages/endpoints.js";
import { renderJob, renderJobs } from "./pages/jobs.js";
import { renderMessage, renderMessages } from "./pages/messages.js";
import { renderAlerts, renderSystem } from "./pages/operator.js";

/** Who is looking: an operator (every application) or a portal session (one application). */
export interface Ctx {
  portal: boolean;
  portalApp: string | null;
}

export interface Route {
  pattern: RegExp;
  consoleOnly?: boolean;
  render(page: HTMLElement, params: Record<string, string>, ctx: Ctx): Promise<void>;
  /** The window's title, before " · hookline"; without it, the page's heading. */
  title?(params: Record<string, string>): string;
}

const ID = "[^/]+";

export const routes: Route[] = [
  { pattern: /^\/apps$/, consoleOnly: true, render: renderApps },
  { pattern: new RegExp(`^/app/(?<app>${ID})/endpoints$`), render: renderEndpoints },
  {
    pattern: new RegExp(`^/app/(?<app>${ID})/endpoint/(?<ep>${ID})$`),
    render: renderEndpoint,
    title: (p) => `Endpoint ${p.ep}`,
  },
  { pattern: new RegExp(`^/app/(?<app>${ID})/messages$`), render: renderMessages },
  {
    pattern: new RegExp(`^/app/(?<app>${ID})/message/(?<msg>${ID})$`),
    render: renderMessage,
    title: (p) => `Message ${p.msg}`,
  },
  { pattern: /^\/dlq$/, consoleOnly: true, render: renderDlq },
  { pattern: new RegExp(`^/dlq/(?<id>${ID})$`), consoleOnly: true, render: renderDeadLetter },
  { pattern: /^\/jobs$/, consoleOnly: true, render: renderJobs },
  { pattern: new RegExp(`^/jobs/(?<id>${ID})$`), consoleOnly: true, render: renderJob },
  { pattern: /^\/alerts$/, consoleOnly: true, render: renderAlerts },
  { pattern: /^\/system$/, consoleOnly: true, render: renderSystem },
];
