// Reads keys with ioredis's Cluster client from the cluster that
// argv[2] ("host:port") belongs to, twice: first while their slots
// migrate (some keys answered with ASK), then, after a line on stdin, once
// the slots have moved (the client's slot map is stale: MOVED). Prints
// "<phase> <key>=<value>" per key for conformance/cluster_proofs_test.go.
import Redis from 'ioredis';
import readline from 'node:readline';

const [host, port] = process.argv[2].split(':');
const keys = process.argv.slice(3);
const c = new Redis.Cluster([{ host, port: +port }], { redisOptions: { maxRetriesPerRequest: 2 } });
const read = async (phase) => {
  for (const k of keys) {
    try {
      console.log(`${phase} ${k}=${await c.get(k)}`);
    } catch (e) {
      console.log(`${phase} ${k} error ${e.message}`);
    }
  }
};
await read('ask');
console.log('ready');
const rl = readline.createInterface({ input: process.stdin });
for await (const _ of rl) break;
rl.close();
await read('moved');
c.disconnect();
