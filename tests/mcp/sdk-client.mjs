#!/usr/bin/env node
// A conformance client for flotillad's MCP server (POST /mcp) built on a client nobody here wrote:
// the official TypeScript SDK, pinned in third_party/mcp-sdk (scripts/install-mcp-sdk.sh). Driven
// by tests/tst_mcp_sdk.cpp, which owns every assertion; this script only reports what it saw.
//
//   FLOTILLA_MCP_TOKEN=<token> node sdk-client.mjs <url> <plan.json>
//
// The plan: {"calls": [{"name": "<tool>", "arguments": {...}}], "auth": "x-auth-token" | "bearer",
// "trace": bool}. The token is sent in a header (never in the URL): X-Auth-Token, or
// Authorization: Bearer with auth "bearer"; no token when the variable is unset.
// FLOTILLA_MCP_SDK_DIR names the pin's directory (default: ../../third_party/mcp-sdk).
//
// Prints one JSON document on stdout: {serverInfo, protocolVersion, capabilities, sessionId,
// tools: [{name, inputSchema, outputSchema?, schemaError?}], calls: [{name, arguments,
// argumentsValid, argumentErrors?, result | error}], terminated, transportErrors, trace?} and
// exits 0; on a transport failure (the connect refused, a POST answered with an HTTP error, a
// DELETE refused) the document carries {failure: {phase, message, status}} and the exit code is 2.
// A JSON-RPC error of one call is no transport failure: it is that call's `error` ({code,
// message, data}).

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const sdkDir = resolve(process.env.FLOTILLA_MCP_SDK_DIR || join(here, '../../third_party/mcp-sdk'));
const sdkRoot = join(sdkDir, 'node_modules/@modelcontextprotocol/sdk');

// The bare specifier would be looked up from tests/mcp, not from the pin's directory, so the
// SDK's own exports map ("import" condition, exact keys or "./*") names the ESM file.
function sdkModule(subpath) {
    const exportsMap = JSON.parse(readFileSync(join(sdkRoot, 'package.json'), 'utf8')).exports;
    let target = exportsMap[subpath]?.import;
    if (!target && exportsMap['./*'])
        target = exportsMap['./*'].import.replace('*', subpath.slice(2));
    if (!target)
        throw new Error(`the SDK exports no ${subpath}`);
    return import(pathToFileURL(join(sdkRoot, target)).href);
}

const [url, planPath] = process.argv.slice(2);
if (!url || !planPath) {
    process.stderr.write('usage: node sdk-client.mjs <url> <plan.json>\n');
    process.exit(64);
}
const plan = JSON.parse(readFileSync(planPath, 'utf8'));
const token = process.env.FLOTILLA_MCP_TOKEN;

const { Client } = await sdkModule('./client/index.js');
const { StreamableHTTPClientTransport } = await sdkModule('./client/streamableHttp.js');
const { McpError } = await sdkModule('./types.js');
const { AjvJsonSchemaValidator } = await sdkModule('./validation/ajv');
const sdkVersion = JSON.parse(readFileSync(join(sdkRoot, 'package.json'), 'utf8')).version;

const headers = {};
if (token)
    headers[plan.auth === 'bearer' ? 'Authorization' : 'X-Auth-Token'] =
        plan.auth === 'bearer' ? `Bearer ${token}` : token;

// Every exchange the SDK makes, for a report of what it sent and got (the token redacted).
const trace = [];
async function tracingFetch(input, init = {}) {
    const sent = new Headers(init.headers);
    for (const secret of ['x-auth-token', 'authorization'])
        if (sent.has(secret))
            sent.set(secret, '<redacted>');
    const entry = {
        method: init.method || 'GET',
        url: String(input),
        requestHeaders: Object.fromEntries(sent),
        requestBody: typeof init.body === 'string' ? init.body : undefined,
    };
    trace.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    entry.responseHeaders = Object.fromEntries(response.headers);
    // An event stream stays open: only a finite body is read (from a clone the SDK never sees).
    if (!(response.headers.get('content-type') || '').startsWith('text/event-stream'))
        entry.responseBody = await response.clone().text();
    return response;
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    ...(plan.trace ? { fetch: tracingFetch } : {}),
});
const transportErrors = [];
transport.onerror = (e) => transportErrors.push({ message: e.message, status: e.code });

const client = new Client({ name: 'flotilla-sdk-conformance', version: sdkVersion });
const requestOptions = { timeout: plan.timeoutMs || 15000 };
const out = { sdkVersion, calls: [], transportErrors };
if (plan.trace)
    out.trace = trace;

function finish(code) {
    process.stdout.write(JSON.stringify(out) + '\n');
    process.exitCode = code;
}

function failure(phase, e) {
    out.failure = { phase, message: e.message, status: e.code };
    finish(2);
}

let phase = 'connect';
try {
    await client.connect(transport, requestOptions);
    out.serverInfo = client.getServerVersion();
    out.capabilities = client.getServerCapabilities();
    out.protocolVersion = transport.protocolVersion;
    out.sessionId = transport.sessionId;

    phase = 'tools/list';
    const listed = await client.listTools(undefined, requestOptions);
    // Each input schema compiled with the SDK's own validator (Ajv), as a client that checks
    // arguments before sending them would.
    const ajv = new AjvJsonSchemaValidator();
    const validators = new Map();
    out.tools = listed.tools.map((t) => {
        const row = { name: t.name, inputSchema: t.inputSchema };
        if (t.outputSchema)
            row.outputSchema = t.outputSchema;
        try {
            validators.set(t.name, ajv.getValidator(t.inputSchema));
        } catch (e) {
            row.schemaError = e.message;
        }
        return row;
    });

    phase = 'tools/call';
    for (const call of plan.calls || []) {
        const row = { name: call.name, arguments: call.arguments || {} };
        out.calls.push(row);
        const validate = validators.get(call.name);
        if (validate) {
            const checked = validate(row.arguments);
            row.argumentsValid = checked.valid;
            if (!checked.valid)
                row.argumentErrors = checked.errorMessage;
        }
        try {
            row.result = await client.callTool(
                { name: call.name, arguments: row.arguments }, undefined, requestOptions);
        } catch (e) {
            if (!(e instanceof McpError))
                throw e;
            row.error = { code: e.code, message: e.message, data: e.data };
        }
    }

    // close() alone only aborts the transport's requests: ending the session is the DELETE.
    phase = 'delete';
    await transport.terminateSession();
    out.terminated = transport.sessionId === undefined;
    await client.close();
    finish(0);
} catch (e) {
    await client.close().catch(() => {});
    failure(phase, e);
}
