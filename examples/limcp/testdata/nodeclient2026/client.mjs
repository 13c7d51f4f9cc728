// Drives `limcp mcp --http URL` on protocol 2026-07-28 with the TypeScript
// SDK's v2 client, pinned to that version: the catalog, and an
// agent.submit the server's policy asks about, answered through the
// input-required round trip by the elicitation handler. Prints what it saw
// as JSON on stdout.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url] = process.argv.slice(2);
const token = process.env.NODECLIENT_BEARER_TOKEN;
const asked = [];
const client = new Client({ name: 'nodeclient2026', version: '1.0.0' }, {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: '2026-07-28' } },
});
client.setRequestHandler('elicitation/create', async (req) => {
  asked.push(req.params.message);
  return { action: 'accept', content: { confirm: true } };
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const call = async (args) => {
  const res = await client.callTool({ name: 'request', arguments: args });
  return JSON.parse(res.content[0].text);
};
const tools = (await client.listTools()).tools.map((t) => t.name);
const catalog = await call({ help: true });
const fp = (await call({ help: 'agent.submit' })).help.schema_fingerprint;
const submit = await call({ ops: [{ op: 'agent.submit', args: { model: 'echo', prompt: 'hello' }, fingerprint: fp }] });
console.log(JSON.stringify({
  protocolVersion: transport.protocolVersion ?? null,
  sessionId: transport.sessionId ?? null,
  tools,
  catalogStatus: catalog.status,
  submit,
  asked,
}));
await client.close();
