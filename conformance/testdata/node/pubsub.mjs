// Subscribes and publishes with ioredis and node-redis (RESP2 and RESP3)
// against the server at argv[2] ("host:port") and prints what each client
// saw, one line per event, for conformance/node_test.go to compare between
// Redis and limitkv.
import Redis from 'ioredis';
import { createClient } from 'redis';

const [host, port] = process.argv[2].split(':');
const log = [];
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const until = async (cond, what) => {
  for (let i = 0; i < 200 && !cond(); i++) await wait(10);
  if (!cond()) log.push(`timeout waiting for ${what}`);
};

async function ioredis() {
  const sub = new Redis({ host, port: +port, lazyConnect: true, maxRetriesPerRequest: 0 });
  const pub = new Redis({ host, port: +port, lazyConnect: true, maxRetriesPerRequest: 0 });
  await sub.connect();
  await pub.connect();
  const got = [];
  sub.on('message', (ch, msg) => got.push(`message ${ch} ${msg}`));
  sub.on('pmessage', (pat, ch, msg) => got.push(`pmessage ${pat} ${ch} ${msg}`));
  log.push(`ioredis subscribe -> ${await sub.subscribe('news', 'alerts')}`);
  log.push(`ioredis psubscribe -> ${await sub.psubscribe('user:*')}`);
  log.push(`ioredis publish -> ${await pub.publish('news', 'hello')}`);
  log.push(`ioredis publish -> ${await pub.publish('user:7', 'hi')}`);
  await until(() => got.length >= 2, 'ioredis messages');
  log.push(...got.sort());
  log.push(`ioredis numsub -> ${JSON.stringify(await pub.call('PUBSUB', 'NUMSUB', 'news', 'none'))}`);
  log.push(`ioredis unsubscribe -> ${await sub.unsubscribe('alerts')}`);
  log.push(`ioredis punsubscribe -> ${await sub.punsubscribe('user:*')}`);
  sub.disconnect();
  pub.disconnect();
}

async function nodeRedis(resp) {
  const opts = { socket: { host, port: +port, reconnectStrategy: false } };
  if (resp === 3) opts.RESP = 3;
  const pub = createClient(opts);
  pub.on('error', (e) => log.push(`node-redis RESP${resp} error ${e.message}`));
  await pub.connect();
  const sub = pub.duplicate();
  sub.on('error', (e) => log.push(`node-redis RESP${resp} sub error ${e.message}`));
  await sub.connect();
  const got = [];
  await sub.subscribe('news', (msg, ch) => got.push(`message ${ch} ${msg}`));
  await sub.pSubscribe('user:*', (msg, ch) => got.push(`pmessage ${ch} ${msg}`));
  await sub.sSubscribe('shard', (msg, ch) => got.push(`smessage ${ch} ${msg}`));
  log.push(`node-redis RESP${resp} publish -> ${await pub.publish('news', 'hello')}`);
  log.push(`node-redis RESP${resp} publish -> ${await pub.publish('user:1', 'hi')}`);
  log.push(`node-redis RESP${resp} spublish -> ${await pub.sPublish('shard', 'sh')}`);
  await until(() => got.length >= 3, `node-redis RESP${resp} messages`);
  log.push(...got.sort());
  log.push(`node-redis RESP${resp} channels -> ${JSON.stringify((await pub.pubSubChannels()).sort())}`);
  log.push(`node-redis RESP${resp} numpat -> ${await pub.pubSubNumPat()}`);
  await sub.unsubscribe('news');
  await sub.pUnsubscribe('user:*');
  await sub.sUnsubscribe('shard');
  log.push(`node-redis RESP${resp} after unsubscribe numsub -> ${JSON.stringify(await pub.pubSubNumSub('news'))}`);
  await sub.quit();
  await pub.quit();
}

try {
  await ioredis();
  await nodeRedis(2);
  await nodeRedis(3);
} catch (e) {
  log.push(`failed: ${e && e.message}`);
}
console.log(log.join('\n'));
process.exit(0);
