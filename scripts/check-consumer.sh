#!/usr/bin/env bash
# Installs the packed tarball into a fresh consumer project and uses it as a merchant would:
# `import` and `require` of every entry, a call against the mock through the main and testing entries,
# the main entry's independence from msw (it loads in a project without msw installed), and the redis
# entry's independence from the Redis libraries; then the tools' tarball beside it: `delivery-task-tools/mcp`
# in a session, `delivery-task mcp --help`; then scripts/check-install.ts over that install. Run after `npm run build`.
set -euo pipefail
root="$(pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

tarball="$(npm pack --silent --pack-destination "$work" | tail -n 1)"
tools_tarball="$(npm pack -w delivery-task-tools --silent --pack-destination "$work" | tail -n 1)"
echo "packed $tarball and $tools_tarball"

# 1. Without msw: the main entry must load and work (it never imports msw).
mkdir "$work/plain" && cd "$work/plain"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$work/$tarball"
node --input-type=module -e "
  const { DeliveryClient, kwd } = await import('delivery-task-sdk');
  const client = new DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl: 'https://x.test' });
  if (kwd.add('0.1', 0.2) !== '0.300' || !client.tasks) throw new Error('ESM import broken');
  console.log('ESM import without msw: ok');
"
node --input-type=module -e "
  // Node.js takes the 'node' condition: the build with zod's schema compiler installed.
  const resolved = import.meta.resolve('delivery-task-sdk');
  if (!resolved.endsWith('/dist/index.node.js')) throw new Error('Node resolved ' + resolved);
  const webhooks = import.meta.resolve('delivery-task-sdk/webhooks');
  if (!webhooks.endsWith('/dist/webhooks.node.js')) throw new Error('Node resolved ' + webhooks);
  const { kwd } = await import('delivery-task-sdk/kwd');
  if (kwd.add('1', '0.005') !== '1.005') throw new Error('delivery-task-sdk/kwd broken');
  const { parseWebhookEvent } = await import('delivery-task-sdk/webhooks');
  if (parseWebhookEvent({ _id: 't1', status: 'delivered' }).taskId !== 't1') throw new Error('delivery-task-sdk/webhooks broken');
  console.log('ESM: node condition, kwd and webhooks subpaths: ok');
"
node -e "
  const { DeliveryError } = require('delivery-task-sdk');
  const { parseWebhookEvent, WebhookPayloadError } = require('delivery-task-sdk/webhooks');
  const { kwd } = require('delivery-task-sdk/kwd');
  let error;
  try { parseWebhookEvent({ status: 'delivered' }); } catch (caught) { error = caught; }
  if (!(error instanceof WebhookPayloadError) || !(error instanceof DeliveryError) || kwd.toFils('0.001') !== 1) throw new Error('CJS subpaths broken');
  console.log('CJS: kwd and webhooks subpaths: ok');
"
node -e "
  const { DeliveryClient, kwd } = require('delivery-task-sdk');
  new DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl: 'https://x.test' });
  if (kwd.toFils('1.250') !== 1250) throw new Error('CJS require broken');
  console.log('CJS require without msw: ok');
"
if [ -d node_modules/msw ]; then echo "msw was installed as a dependency of the main entry" >&2; exit 1; fi

# The redis entry loads without ioredis or redis installed (it takes the merchant's client), drives a
# client by shape, and throws the main entry's ConfigurationError class in both module systems.
node --input-type=module -e "
  const { ConfigurationError } = await import('delivery-task-sdk');
  const { redisStore } = await import('delivery-task-sdk/redis');
  const sent = [];
  const store = redisStore({ sendCommand: async (args) => args[0] === 'CONFIG' ? ['maxmemory-policy', 'noeviction'] : (sent.push(args), 'OK') }, { prefix: 'p:' });
  if ((await store.setIfAbsent('k', 'v', 1000)) !== true || sent[0]?.join(' ') !== 'SET p:k v PX 1000 NX') {
    throw new Error('ESM import of the redis entry broken: ' + JSON.stringify(sent));
  }
  let error;
  try { redisStore({}); } catch (caught) { error = caught; }
  if (!(error instanceof ConfigurationError) || error.option !== 'client') throw new Error('ESM redis entry error class broken');
  console.log('ESM import of delivery-task-sdk/redis without a Redis library: ok');
"
node -e "
  const { ConfigurationError } = require('delivery-task-sdk');
  const { redisStore } = require('delivery-task-sdk/redis');
  const store = redisStore({ call: async (command, ...args) => (command === 'GET' && args[0] === 'dts:k' ? 'v' : null) });
  let error;
  try { redisStore({ call: async () => null }, { prefix: 1 }); } catch (caught) { error = caught; }
  if (!(error instanceof ConfigurationError) || error.option !== 'prefix') throw new Error('CJS redis entry error class broken');
  store.get('k').then((value) => {
    if (value !== 'v') throw new Error('CJS require of the redis entry broken');
    console.log('CJS require of delivery-task-sdk/redis without a Redis library: ok');
  }).catch((error) => { console.error(error); process.exit(1); });
"
# The postgres entry loads without pg installed (it takes the merchant's pool) and drives a pool by shape.
node --input-type=module -e "
  const { ConfigurationError } = await import('delivery-task-sdk');
  const { postgresStore } = await import('delivery-task-sdk/postgres');
  const queries = [];
  const store = postgresStore({ totalCount: 0, query: async (query) => (queries.push(query), { rows: [{ value: 'v' }], rowCount: 1 }) }, { createTable: false });
  // The first call awaits ready(): the table's columns are read once (createTable: false creates nothing),
  // as plain text; the read itself is a named prepared statement (the default).
  const [check, read] = queries.length === 0 && (await store.get('k')) === 'v' ? queries : [];
  if (typeof check !== 'string' || !check.startsWith('SELECT key, value, expires_at FROM') || typeof read?.name !== 'string' || !read.text?.startsWith('SELECT value FROM')) throw new Error('ESM import of the postgres entry broken: ' + JSON.stringify(queries));
  let error;
  try { postgresStore({}); } catch (caught) { error = caught; }
  if (!(error instanceof ConfigurationError) || error.option !== 'pool') throw new Error('ESM postgres entry error class broken');
  console.log('ESM import of delivery-task-sdk/postgres without pg: ok');
"
node -e "
  const { ConfigurationError } = require('delivery-task-sdk');
  const { postgresInbox } = require('delivery-task-sdk/postgres');
  let error;
  try { postgresInbox({ query: async () => ({ rows: [], rowCount: 0 }) }, { table: 'a;b' }); } catch (caught) { error = caught; }
  if (!(error instanceof ConfigurationError) || error.option !== 'table') throw new Error('CJS postgres entry error class broken');
  console.log('CJS require of delivery-task-sdk/postgres without pg: ok');
"
if [ -d node_modules/pg ]; then echo "pg was installed: it must stay an optional peer" >&2; exit 1; fi
for library in ioredis redis @modelcontextprotocol/sdk; do
  if [ -d "node_modules/$library" ]; then echo "$library was installed: it must stay an optional peer" >&2; exit 1; fi
done

# 2. With msw: both entries, both module systems, a real call against the mock.
mkdir "$work/kit" && cd "$work/kit"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$work/$tarball" "msw@$(node -p "require('$root/node_modules/msw/package.json').version")"
cat > esm.mjs <<'JS'
import { DeliveryClient } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
const mock = createMockDeliveryService();
mock.listen();
const client = new DeliveryClient({ apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl: `${mock.baseUrl}/rest` });
const task = await client.tasks.create({ orderNumber: 'C-1', deliveryLocation: { latitude: 29.3, longitude: 48 } });
const page = await client.tasks.list();
mock.close();
if (page.total !== 1 || page.tasks[0]?.id !== task.id) throw new Error('ESM round trip broken');
console.log('ESM import of both entries, create + list against the mock: ok');
JS
node esm.mjs
cat > cjs.cjs <<'JS'
const { DeliveryClient, NotFoundError } = require('delivery-task-sdk');
const { createMockDeliveryService } = require('delivery-task-sdk/testing');
(async () => {
  const mock = createMockDeliveryService();
  mock.listen();
  const client = new DeliveryClient({ apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl: mock.baseUrl, logLevel: 'off' });
  const error = await client.tasks.retrieve('missing').catch((caught) => caught);
  mock.close();
  if (!(error instanceof NotFoundError)) throw new Error(`CJS round trip broken: ${error}`);
  console.log('CJS require of both entries, typed 404 against the mock: ok');
})().catch((error) => { console.error(error); process.exit(1); });
JS
node cjs.cjs

# 3. The tools' mcp entry installed beside the SDK: a session over the MCP SDK's in-memory transport
# against the mock, the SDK's error class from a bad policy (one copy of the SDK), the executable.
mkdir "$work/agent" && cd "$work/agent"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$work/$tarball" "$work/$tools_tarball"
cat > agent.mjs <<'JS'
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { DeliveryClient } from 'delivery-task-sdk';
import { createMcpServer } from 'delivery-task-tools/mcp';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
const mock = createMockDeliveryService();
mock.listen();
const client = new DeliveryClient({ apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl: mock.baseUrl, logLevel: 'off' });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await createMcpServer(client, { allow: ['read', 'create'], maxFeeKwd: 3 }).connect(serverSide);
const agent = new Client({ name: 'consumer', version: '1.0.0' });
await agent.connect(clientSide);
const { tools } = await agent.listTools();
const balance = await agent.callTool({ name: 'get_wallet_balance', arguments: {} });
await agent.close();
mock.close();
if (tools.length !== 6 || balance.structuredContent?.walletAmountKwd !== '100.000') {
  throw new Error(`ESM mcp entry broken: ${tools.length} tools, ${JSON.stringify(balance)}`);
}
console.log('ESM import of delivery-task-tools/mcp, a session against the mock: ok');
JS
node agent.mjs
node --input-type=module -e "
  const { ConfigurationError, DeliveryClient } = await import('delivery-task-sdk');
  const { createMcpServer } = await import('delivery-task-tools/mcp');
  const client = new DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl: 'https://x.test' });
  createMcpServer(client);
  let error;
  try { createMcpServer(client, { allow: ['create'] }); } catch (caught) { error = caught; }
  if (!(error instanceof ConfigurationError) || error.option !== 'policy.allow') throw new Error('mcp entry broken: ' + error);
  console.log('delivery-task-tools/mcp throws the SDK\'s ConfigurationError: ok');
"
./node_modules/.bin/delivery-task mcp --help | grep -q -- '--daily-cap-kwd' || { echo "delivery-task mcp --help failed" >&2; exit 1; }
echo "delivery-task mcp --help from the tools' tarball: ok"

# 4. What a merchant can follow from the install: every link, image, anchor and cited section of the shipped
# READMEs, guides, .d.ts/.js and --help texts resolves inside it; the release is one version with a CHANGELOG
# section in each package; the manifests carry nothing only the repository uses.
tsx "$root/scripts/check-install.ts" "$work/agent"
echo "consumer check passed"
