// BullMQ as a rival of Clockwork's Redis queue in the benchmarks: one run of one mode against one redis-server on
// 127.0.0.1, reported as one JSON line on stdout (progress lines start with {"phase": ...}; errors go to stderr and
// end the process with status 1).
//
//   node rival.mjs add   --port P --queue NAME [--prefix bull] [--producers 4] [--delay-ms 0] [--payload-bytes 100]
//                        [--warmup-seconds 0] (--seconds S | --count N) [--handshake]
//   node rival.mjs drain --port P --queue NAME [--prefix bull] [--backlog 100000] [--concurrency 4]
//                        [--payload-bytes 100] [--keep-completed] [--handshake]
//
// add: producers are async loops sharing one Queue (one connection, as threads share one client), each with one
// queue.add in flight at a time; measured for S seconds or until N adds in all. drain: fills the queue with due jobs
// through queue.addBulk (not timed), then a Worker with a no-op processor completes them all; timed from the Worker's
// start to the last 'completed' event.
//
// Settings are BullMQ's documented production ones where its docs give any: removeOnComplete and removeOnFail true
// (default job options of the Queue, and of the Worker), so that Redis keeps no finished job; the Worker's connection
// has maxRetriesPerRequest null. Everything else is BullMQ's default (events stream, stalled checks, lock renewal).
//
// --handshake: the caller measures the redis-server around the timed part. The program prints {"phase":"ready"} when
// everything untimed is done (connections, warm-up, fill) and waits for a line "go" on stdin; after the result line it
// waits for stdin to close before it closes its connections, so that nothing but the timed part falls between the
// caller's two readings.

import { Queue, Worker } from 'bullmq';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const NAME = 'j';

function parse(argv) {
    const mode = argv[0];
    if (mode !== 'add' && mode !== 'drain') {
        throw new Error(`mode must be add or drain, was ${mode}`);
    }
    const o = {
        mode, prefix: 'bull', producers: 4, 'delay-ms': 0, 'payload-bytes': 100, 'warmup-seconds': 0,
        seconds: 0, count: 0, backlog: 100000, concurrency: 4, 'keep-completed': false, handshake: false,
    };
    const flags = new Set(['keep-completed', 'handshake']);
    const strings = new Set(['queue', 'prefix']);
    for (let i = 1; i < argv.length; i++) {
        const key = argv[i].replace(/^--/, '');
        if (!(key in o) && key !== 'port' && key !== 'queue') {
            throw new Error(`unknown option ${argv[i]}`);
        }
        if (flags.has(key)) {
            o[key] = true;
            continue;
        }
        if (i + 1 >= argv.length) {
            throw new Error(`option ${argv[i]} needs a value`);
        }
        const value = argv[++i];
        if (strings.has(key)) {
            o[key] = value;
        } else {
            const n = Number(value);
            if (!Number.isFinite(n) || n < 0) {
                throw new Error(`${argv[i - 1]} must be a number >= 0, was ${value}`);
            }
            o[key] = n;
        }
    }
    if (!Number.isInteger(o.port) || o.port < 1 || o.port > 65535) {
        throw new Error(`--port must be an integer in [1, 65535], was ${o.port}`);
    }
    if (!o.queue) {
        throw new Error('--queue is required');
    }
    for (const k of ['producers', 'concurrency', 'backlog']) {
        if (!Number.isInteger(o[k]) || o[k] < 1) {
            throw new Error(`--${k} must be an integer >= 1, was ${o[k]}`);
        }
    }
    if (mode === 'add' && (o.seconds > 0) === (o.count > 0)) {
        throw new Error('add needs exactly one of --seconds S or --count N (> 0)');
    }
    return o;
}

function payload(bytes) {
    return 'x'.repeat(bytes);
}

function versionOf(pkg) {
    const url = new URL(`./node_modules/${pkg}/package.json`, import.meta.url);
    return JSON.parse(readFileSync(url, 'utf8')).version;
}

function print(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

// Lines of stdin, read on demand; null once stdin is closed.
function stdinLines() {
    const rl = createInterface({ input: process.stdin });
    const lines = [];
    const waiting = [];
    let closed = false;
    rl.on('line', l => (waiting.length ? waiting.shift()(l) : lines.push(l)));
    rl.on('close', () => {
        closed = true;
        while (waiting.length) {
            waiting.shift()(null);
        }
    });
    return () => (lines.length ? Promise.resolve(lines.shift())
        : closed ? Promise.resolve(null) : new Promise(r => waiting.push(r)));
}

async function awaitGo(o, next) {
    if (!o.handshake) {
        return;
    }
    print({ phase: 'ready' });
    const line = await next();
    if (line === null || line.trim() !== 'go') {
        throw new Error(`expected "go" on stdin, got ${line === null ? 'end of input' : JSON.stringify(line)}`);
    }
}

async function awaitClose(o, next) {
    if (!o.handshake) {
        return;
    }
    while ((await next()) !== null) {
        // the caller's lines after "go" carry nothing: only the end of input counts
    }
}

function connection(o, extra = {}) {
    return { host: '127.0.0.1', port: o.port, ...extra };
}

function jobOptions() {
    return { removeOnComplete: true, removeOnFail: true };
}

// Runs the producers until stop() says so or the shared count is used up; returns the adds done.
async function produce(queue, o, data, stop) {
    let adds = 0;
    let left = o.count > 0 ? o.count : Infinity;
    const opts = o['delay-ms'] > 0 ? { delay: o['delay-ms'] } : {};
    const loops = [];
    for (let p = 0; p < o.producers; p++) {
        loops.push((async () => {
            while (!stop() && left-- > 0) {
                await queue.add(NAME, data, opts);
                adds++;
            }
        })());
    }
    await Promise.all(loops);
    return adds;
}

async function add(o, next) {
    const queue = new Queue(o.queue, { connection: connection(o), prefix: o.prefix, defaultJobOptions: jobOptions() });
    try {
        await queue.waitUntilReady();
        const data = payload(o['payload-bytes']);
        if (o['warmup-seconds'] > 0) {
            const until = Date.now() + o['warmup-seconds'] * 1000;
            await produce(queue, { ...o, count: 0 }, data, () => Date.now() >= until);
        }
        await awaitGo(o, next);
        const t0 = process.hrtime.bigint();
        const endNs = t0 + BigInt(Math.round(o.seconds * 1e9));
        const adds = await produce(queue, o, data, () => o.seconds > 0 && process.hrtime.bigint() >= endNs);
        const secs = Number(process.hrtime.bigint() - t0) / 1e9;
        print({
            mode: 'add', adds, seconds: secs, addsPerSec: adds / secs, producers: o.producers, delayMs: o['delay-ms'],
            payloadBytes: o['payload-bytes'], bullmq: versionOf('bullmq'), ioredis: versionOf('ioredis'),
            node: process.version,
        });
        await awaitClose(o, next);
    } finally {
        await queue.close();
    }
}

async function fill(queue, o, data) {
    const chunk = 1000;
    const inFlight = 4;
    let next = 0;
    const loops = [];
    for (let l = 0; l < inFlight; l++) {
        loops.push((async () => {
            while (next < o.backlog) {
                const n = Math.min(chunk, o.backlog - next);
                next += n;
                await queue.addBulk(Array.from({ length: n }, () => ({ name: NAME, data })));
            }
        })());
    }
    await Promise.all(loops);
}

async function drain(o, next) {
    const keep = o['keep-completed'];
    const defaults = keep ? {} : jobOptions();
    const queue = new Queue(o.queue, { connection: connection(o), prefix: o.prefix, defaultJobOptions: defaults });
    let worker;
    try {
        await queue.waitUntilReady();
        await fill(queue, o, payload(o['payload-bytes']));
        const counts = await queue.getJobCounts('wait');
        if (counts.wait !== o.backlog) {
            throw new Error(`filled ${counts.wait} waiting jobs, expected ${o.backlog}`);
        }
        worker = new Worker(o.queue, async () => {}, {
            connection: connection(o, { maxRetriesPerRequest: null }), prefix: o.prefix, concurrency: o.concurrency,
            autorun: false, ...(keep ? {} : jobOptions()),
        });
        let completed = 0;
        let failed = 0;
        let firstError;
        let resolveDone;
        const done = new Promise(r => (resolveDone = r));
        worker.on('completed', () => {
            if (++completed + failed === o.backlog) {
                resolveDone();
            }
        });
        worker.on('failed', (job, err) => {
            firstError ??= err;
            if (completed + ++failed === o.backlog) {
                resolveDone();
            }
        });
        worker.on('error', err => {
            firstError ??= err;
        });
        await worker.waitUntilReady();
        await awaitGo(o, next);
        const t0 = process.hrtime.bigint();
        const running = worker.run();
        await done;
        const secs = Number(process.hrtime.bigint() - t0) / 1e9;
        if (failed > 0) {
            throw new Error(`${failed} of ${o.backlog} jobs failed, first: ${firstError}`);
        }
        print({
            mode: 'drain', jobs: completed, seconds: secs, jobsPerSec: completed / secs, concurrency: o.concurrency,
            keepCompleted: keep, payloadBytes: o['payload-bytes'], bullmq: versionOf('bullmq'),
            ioredis: versionOf('ioredis'), node: process.version,
        });
        await awaitClose(o, next);
        await worker.close();
        await running;
    } finally {
        if (worker) {
            await worker.close();
        }
        await queue.close();
    }
}

async function main() {
    const o = parse(process.argv.slice(2));
    const next = stdinLines();
    await (o.mode === 'add' ? add(o, next) : drain(o, next));
    process.exit(0);
}

main().catch(err => {
    process.stderr.write(`bullmq rival: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
});
