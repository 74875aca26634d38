// Runs an agent through AG-UI's own TypeScript client (@ag-ui/client's HttpAgent) and
// prints what the client made of the run: its events, then its messages, as JSON.
// Usage: node run_agent.mjs URL RUN.json   (RUN: {messages, tools, context})
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.AG_UI_CLIENT_DIR + "/");
const { HttpAgent } = require("@ag-ui/client");

const [url, runFile] = process.argv.slice(2);
const run = JSON.parse(readFileSync(runFile, "utf8"));
const agent = new HttpAgent({ url, threadId: "thread-js", initialMessages: run.messages });
const events = [];
try {
  await agent.runAgent(
    { runId: "run-js", tools: run.tools ?? [], context: run.context ?? [] },
    { onEvent: ({ event }) => { events.push(event.type); } },
  );
  console.log(JSON.stringify({ events, messages: agent.messages }));
} catch (error) {
  console.log(JSON.stringify({ events, error: String(error?.message ?? error) }));
}
