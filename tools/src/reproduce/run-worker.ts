/**
 * A worker thread of `harness-s reproduce --jobs N`: runs the jobs it is sent, one at a time,
 * and reports each training step and each finished run to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HarnessError } from '@harness-s/core';
import { loadPlugins } from '../plugins.js';
import { interruptedError, type JobReply, type JobRequest } from './job-pool.js';
import { type ReproduceJob, ResourceCache, runJob } from './jobs.js';

const port = parentPort;
if (!port) throw new Error('run-worker.ts runs only as a worker thread');
// The thread has its own registries: the plug-ins the main thread loaded from modules load again.
await loadPlugins(
  ((workerData as { plugins?: string[] } | null)?.plugins ?? []).join(','),
  process.cwd(),
  'the plug-ins handed to a reproduction worker thread',
);
const cache = new ResourceCache();
const post = (reply: JobReply) => port.postMessage(reply);
/** Aborted by an interrupt: the job running stops, and so does any sent after it. */
const interrupts = new AbortController();

port.on('message', async (request: JobRequest) => {
  if (request.kind === 'interrupt') {
    interrupts.abort(interruptedError());
    return;
  }
  if (request.kind === 'close') {
    await cache.close();
    port.close();
    return;
  }
  const job: ReproduceJob = request.job;
  try {
    interrupts.signal.throwIfAborted();
    const onStep = (label: string) => post({ kind: 'step', label });
    const record = await runJob(job, await cache.get(job), onStep, interrupts.signal);
    post({ kind: 'done', id: request.id, record });
  } catch (error) {
    const { message, stack } = error as Error;
    post({
      kind: 'failed',
      id: request.id,
      message: String(message ?? error),
      ...(stack ? { stack } : {}),
      ...(HarnessError.isInstance(error)
        ? { harness: { name: error.name, category: error.category, code: error.code } }
        : {}),
    });
  }
});
