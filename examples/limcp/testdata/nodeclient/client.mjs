// An independent MCP client: the official TypeScript SDK drives `limcp mcp`
// over stdio (and streamable HTTP when a URL is given) through the same
// journey an agent takes, and prints what it saw as one JSON object per
// transport for nodeclient_test.go to check. It asserts nothing itself.
//
//   node client.mjs LIMCP_BINARY HOME [HTTP_URL]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

async function journey(transport, name) {
  const client = new Client({ name: "limcp-nodeclient", version: "1.0.0" });
  await client.connect(transport);
  const seen = { transport: name };
  const tools = await client.listTools();
  seen.tools = tools.tools.map((t) => t.name);
  seen.toolBytes = JSON.stringify(tools.tools[0]).length;

  const call = (args, opts) => client.callTool({ name: "request", arguments: args }, undefined, opts);
  const catalog = await call({ help: true });
  seen.catalogVerbs = catalog.structuredContent.help.verbs.length;

  const help = await call({ help: "agent.submit" });
  const fingerprint = help.structuredContent.help.schema_fingerprint;
  const args = { model: "echo:delay=500ms", prompt: "from the TypeScript SDK" };
  const stale = await call({ ops: [{ op: "agent.submit", fingerprint: "sf1-0000000000000000", args }] });
  const rejection = stale.structuredContent.results[0].error;
  seen.staleCode = rejection.code;
  seen.staleCarriesFingerprint = rejection.schema_fingerprint === fingerprint;
  seen.staleHelpCall = rejection.help_call;

  const submitted = await call({ ops: [{ op: "agent.submit", fingerprint: rejection.schema_fingerprint, args }] });
  const id = submitted.structuredContent.results[0].result.id;
  const progress = [];
  const waited = await call(
    { ops: [{ op: "job.wait", args: { ids: [id], poll_interval_seconds: 0.2 } }, { op: "job.output", args: { id } }] },
    { onprogress: (p) => progress.push(p.progress) },
  );
  const [wait, output] = waited.structuredContent.results;
  seen.allTerminal = wait.result.all_terminal;
  seen.outcome = wait.result.entries[0].outcome;
  seen.stdout = output.result.stdout;
  seen.progress = progress;

  const malformed = await call({ nope: 1 });
  seen.malformedIsError = malformed.isError === true;
  seen.malformedStatus = malformed.structuredContent.status;
  seen.textEqualsStructured = JSON.stringify(JSON.parse(malformed.content[0].text)) === JSON.stringify(malformed.structuredContent);
  await client.close();
  return seen;
}

// The HTTP server's bearer token comes in the environment, not argv: a
// process's arguments are visible to every local user.
const [bin, home, url] = process.argv.slice(2);
const token = process.env.NODECLIENT_BEARER_TOKEN;
const out = [await journey(new StdioClientTransport({ command: bin, args: ["--home", home, "mcp"], env: process.env }), "stdio")];
if (url) {
  out.push(await journey(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }), "http"));
}
console.log(JSON.stringify(out));
