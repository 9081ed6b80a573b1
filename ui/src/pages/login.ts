/** The operator console's sign-in: the admin token, kept in this tab's sessionStorage only. */
import { field, h, replace } from "../dom.js";

export function renderLogin(main: HTMLElement, signIn: (token: string) => Promise<void>): void {
  const input = h("input", {
    type: "password",
    name: "token",
    autocomplete: "off",
    required: true,
  });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "card narrow", "aria-labelledby": "login-title" },
    h("h1", { id: "login-title" }, "Operator console"),
    h("p", {}, "Sign in with an admin API token (hookline prints where to find it on start)."),
    field("Admin token", input),
    h("button", { type: "submit" }, "Sign in"),
    error,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    signIn(input.value.trim()).catch((err: unknown) => {
      sessionStorage.clear();
      replace(error, err instanceof Error ? err.message : String(err));
    });
  });
  replace(main, form);
  input.focus();
}
