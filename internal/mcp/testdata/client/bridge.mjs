// A line-oriented bridge between a Go test and the official MCP TypeScript
// SDK client. The test writes one JSON request per line on stdin and reads
// one JSON reply per line on stdout:
//
//   {"op":"connect","command":"/path/compartment","args":["serve"],"env":{...}}
//   {"op":"info"}                       -> server info and instructions
//   {"op":"list"}                       -> tools/list result
//   {"op":"call","name":"memory_store","arguments":{...}}
//   {"op":"bench","name":"memory_search","arguments":{...},"n":50}
//                                       -> latency percentiles in ms; "{i}" in
//                                          string arguments becomes the index
//   {"op":"close"}                      -> the server's stderr and any
//                                          protocol errors seen
//
// Every reply is {"ok":true,"result":...,"ms":...} or {"ok":false,"error":"..."}.
// callTool validates structuredContent against the tool's outputSchema, so a
// result that breaks its declared schema comes back as an error.
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

let client = null;
let transport = null;
let stderr = "";
let protocolErrors = [];

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function substitute(value, i) {
  if (typeof value === "string") return value.replaceAll("{i}", String(i));
  if (Array.isArray(value)) return value.map((v) => substitute(v, i));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, i)]));
  }
  return value;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const ops = {
  async connect(req) {
    stderr = "";
    protocolErrors = [];
    transport = new StdioClientTransport({
      command: req.command,
      args: req.args ?? [],
      env: req.env ?? {},
      stderr: "pipe",
    });
    transport.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: "compartment-e2e", version: "1.0.0" });
    client.onerror = (err) => protocolErrors.push(String(err?.message ?? err));
    await client.connect(transport);
    return { server: client.getServerVersion() };
  },
  async info() {
    return {
      server: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
    };
  },
  async list() {
    return await client.listTools();
  },
  async call(req) {
    return await client.callTool({ name: req.name, arguments: req.arguments ?? {} });
  },
  async bench(req) {
    const times = [];
    for (let i = 0; i < req.n; i++) {
      const t0 = performance.now();
      const res = await client.callTool({ name: req.name, arguments: substitute(req.arguments ?? {}, i) });
      times.push(performance.now() - t0);
      if (res.isError) throw new Error(`call ${i}: ${JSON.stringify(res.content)}`);
    }
    times.sort((a, b) => a - b);
    return { n: times.length, p50_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95), max_ms: times[times.length - 1] };
  },
  async close() {
    await client.close();
    // Let the last stderr lines arrive after the server exits.
    await new Promise((r) => setTimeout(r, 50));
    const out = { stderr, protocol_errors: protocolErrors };
    client = null;
    transport = null;
    return out;
  },
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    reply({ ok: false, error: `bad request line: ${err.message}` });
    continue;
  }
  const op = ops[req.op];
  if (!op) {
    reply({ ok: false, error: `unknown op ${req.op}` });
    continue;
  }
  const t0 = performance.now();
  try {
    const result = await op(req);
    reply({ ok: true, result, ms: performance.now() - t0 });
  } catch (err) {
    reply({ ok: false, error: String(err?.message ?? err), ms: performance.now() - t0 });
  }
}
if (client) await client.close();
