// A TypeScript SDK client over Streamable HTTP, for the e2e tests of
// `mcpsum serve`: node client.mjs SDK ERA URL TOKEN TOOL ARGS-JSON
//   SDK  v1 (@modelcontextprotocol/sdk) or v2 (@modelcontextprotocol/client)
//   ERA  legacy, or modern (v2 only: versionNegotiation auto, 2026-07-28)
// It lists the tools, calls TOOL with ARGS and prints one JSON line:
// {"tools": [names], "result": the call's result, "era": ...}; an error
// exits 1 with the message on stderr.
const [sdk, era, url, token, tool, args] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${token}` };
let client, transport;
if (sdk === "v1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  client = new Client({ name: "e2e-ts-v1", version: "1" });
  transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
} else {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const opts = era === "modern" ? { versionNegotiation: { mode: "auto" } } : {};
  client = new Client({ name: "e2e-ts-v2", version: "1" }, opts);
  transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
}
try {
  await client.connect(transport);
  const tools = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args || "{}") });
  const version = client.getNegotiatedProtocolVersion ? client.getNegotiatedProtocolVersion() : transport.protocolVersion;
  console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name), result, version }));
  await client.close();
} catch (e) {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
}
