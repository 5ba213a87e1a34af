#!/usr/bin/env bash
# The published types as a consumer without @types/node sees them: packs the tarball, installs it into a
# scratch project whose only other package is TypeScript (the repository's own copy, linked: no network),
# and type-checks a file that imports the main entry, ./kwd and ./webhooks with `--types []` (no ambient
# Node types) and `--skipLibCheck false` (the package's .d.ts files are checked too), once resolving
# as ESM (nodenext, .mts) and once as CommonJS (.cts); then with @types/node, and every CommonJS entry
# (./testing included) in node16 mode. Run after `npm run build`.
set -euo pipefail
root="$(pwd)"
typescript="$root/node_modules/typescript"
[ -f "$typescript/package.json" ] || { echo "typescript is not installed in $root/node_modules" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

tarball="$(npm pack --silent --ignore-scripts --pack-destination "$work" | tail -n 1)"
mkdir -p "$work/consumer/node_modules"
cd "$work/consumer"
echo '{ "name": "types-consumer", "private": true, "type": "module" }' > package.json
# The tarball's files, with its dependencies' types (zod; ky is bundled into the CommonJS build and only
# imported by the ESM one) resolved from the repository's node_modules, as npm would install them.
mkdir node_modules/delivery-task-sdk
tar -xzf "$work/$tarball" -C node_modules/delivery-task-sdk --strip-components=1
ln -s "$typescript" node_modules/typescript
for dependency in zod ky; do ln -s "$root/node_modules/$dependency" "node_modules/$dependency"; done
if [ -e node_modules/@types ]; then echo "the scratch project must not have @types" >&2; exit 1; fi

cat > consumer.mts <<'TS'
import {
  DeliveryClient,
  DeliveryError,
  kwd as kwdFromMain,
  NotFoundError,
  type ClientOptions,
} from 'delivery-task-sdk';
import { kwd } from 'delivery-task-sdk/kwd';
import { createWebhookHandler, parseWebhookEvent, type WebhookEvent } from 'delivery-task-sdk/webhooks';

const options: ClientOptions = { apiKey: 'k', sellerId: 's', baseUrl: 'https://delivery.test/rest/' };
const client = new DeliveryClient(options);
export async function retrieve(id: string): Promise<string | undefined> {
  try {
    return (await client.tasks.retrieve(id)).id;
  } catch (error) {
    if (error instanceof NotFoundError) return `${error.status}`;
    if (error instanceof DeliveryError) return `${error.name}: ${error.message}`;
    throw error;
  }
}
export const total: string = kwd.add(kwdFromMain.add('0.100', '0.200'), '1');
const handler = createWebhookHandler({ onEvent: (event: WebhookEvent) => void event.taskId });
export const answer: Promise<Response> = handler.fetch(new Request('https://shop.test/hook', { method: 'POST' }));
export const event: WebhookEvent = parseWebhookEvent({ _id: 't1', status: 'delivered' });
TS
sed -e "s/^export const answer.*//" consumer.mts > consumer.cts

# `types: []`: no ambient type package at all (no @types/node even if one were found); the DOM library
# gives fetch, Request, Response and Headers, as in a browser, worker or edge project.
for file in consumer.mts consumer.cts; do
  cat > tsconfig.json <<JSON
{
  "compilerOptions": {
    "noEmit": true, "strict": true, "skipLibCheck": false, "types": [],
    "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022",
    "lib": ["es2022", "dom", "dom.iterable"],
    "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true
  },
  "files": ["$file"]
}
JSON
  node "$typescript/bin/tsc" -p tsconfig.json
  echo "types: $file imports the main entry, ./kwd and ./webhooks without @types/node (skipLibCheck false): ok"
done

# And with @types/node, as a Node project: node:http's request and response (and a server listener)
# still fit the Node adapter's structural types.
mkdir ../node-consumer && cd ../node-consumer
echo '{ "name": "types-node-consumer", "private": true, "type": "module" }' > package.json
mkdir -p node_modules/@types
ln -s "$work/consumer/node_modules/delivery-task-sdk" node_modules/delivery-task-sdk
for dependency in typescript zod ky; do ln -s "$(readlink -f "$work/consumer/node_modules/$dependency")" "node_modules/$dependency"; done
ln -s "$root/node_modules/@types/node" node_modules/@types/node
[ -e "$root/node_modules/undici-types" ] && ln -s "$root/node_modules/undici-types" node_modules/undici-types
cat > consumer.mts <<'TS'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createWebhookHandler } from 'delivery-task-sdk/webhooks';

const handler = createWebhookHandler({ onEvent: () => {} });
export const server = createServer(handler.node);
export const listener = (request: IncomingMessage, response: ServerResponse): Promise<void> =>
  handler.node(request, response, { body: { _id: 't1', status: 'delivered' } });
TS
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "noEmit": true, "strict": true, "skipLibCheck": false, "types": ["node"],
    "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022", "lib": ["es2022"],
    "exactOptionalPropertyTypes": true
  },
  "files": ["consumer.mts"]
}
JSON
node "$typescript/bin/tsc" -p tsconfig.json
echo "types: with @types/node, node:http's request and response fit handler.node: ok"

# And as a CommonJS project in TypeScript's node16 mode with skipLibCheck off: every entry `require`
# reaches, the testing entry included, whose msw ships ESM only (its types are imported as ESM).
mkdir ../cjs-consumer && cd ../cjs-consumer
echo '{ "name": "types-cjs-consumer", "private": true }' > package.json
mkdir -p node_modules/@types
ln -s "$work/consumer/node_modules/delivery-task-sdk" node_modules/delivery-task-sdk
for dependency in typescript zod ky; do ln -s "$(readlink -f "$work/consumer/node_modules/$dependency")" "node_modules/$dependency"; done
# msw beside the package, where npm installs it (a peer of ./testing).
ln -s "$root/node_modules/msw" "$work/consumer/node_modules/msw"
ln -s "$root/node_modules/@types/node" node_modules/@types/node
[ -e "$root/node_modules/undici-types" ] && ln -s "$root/node_modules/undici-types" node_modules/undici-types
cat > consumer.cts <<'TS'
import { DeliveryClient } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
import { createWebhookHandler } from 'delivery-task-sdk/webhooks';
import { redisStore } from 'delivery-task-sdk/redis';
import { postgresStore } from 'delivery-task-sdk/postgres';
import { kwd } from 'delivery-task-sdk/kwd';
import { TASK_STATUSES } from 'delivery-task-sdk/schemas';
export const used = [DeliveryClient, createMockDeliveryService, createWebhookHandler, redisStore, postgresStore, kwd, TASK_STATUSES];
TS
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "noEmit": true, "strict": true, "skipLibCheck": false, "types": ["node"],
    "module": "node16", "moduleResolution": "node16", "target": "es2022", "lib": ["es2022", "dom", "dom.iterable"]
  },
  "files": ["consumer.cts"]
}
JSON
node "$typescript/bin/tsc" -p tsconfig.json
echo "types: consumer.cts (node16, CommonJS) imports every CommonJS entry, ./testing included (skipLibCheck false): ok"
