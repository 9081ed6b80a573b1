/** Scripts run in child processes of their own, released at the same moment to race. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Runs one child process per script (an ES module run from source through tsx, in the repository's
 * root): each does its imports, prints "ready" and waits for stdin to close; once all are ready
 * they are released together, so that what they do next races. Resolves with what each printed
 * after "ready", trimmed; rejects if one exits before it is ready or with another code than 0.
 */
export async function raceInChildren(scripts: string[]): Promise<string[]> {
  const children = scripts.map((script) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root, stdio: ["pipe", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on("data", () => stdout.includes("ready\n") && resolve());
      child.once("exit", () => reject(new Error(`child exited before ready: ${stderr}`)));
    });
    const exited = new Promise<string>((resolve, reject) => {
      child.once("exit", (code) =>
        code === 0
          ? resolve(stdout.replace("ready\n", "").trim())
          : reject(new Error(`child exited with ${code}: ${stderr}`)),
      );
    });
    // Awaited below only once every child is ready; keep an early failure from going unhandled.
    exited.catch(() => {});
    return { child, ready, exited };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin.end("go\n");
  return Promise.all(children.map((c) => c.exited));
}
