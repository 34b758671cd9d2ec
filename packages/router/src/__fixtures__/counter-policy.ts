import type { Policy } from '@harness-s/core';
import { callTool } from '@harness-s/core/testing';

/**
 * A policy for the counter environment that sets the counter right (count-N: N) exactly where
 * `solves(N, harnessId)` says so, and to 0 elsewhere, then submits.
 */
export function counterPolicy(version: string, solves: (target: number, harnessId: string) => boolean): Policy {
  return {
    id: 'test',
    version,
    needsPlan: false,
    describe: () => ({}),
    startEpisode(context) {
      const target = Number(context.task.id.split('-')[1]);
      const right = solves(target, context.harness.spec.id);
      let turn = 0;
      return {
        async respond() {
          turn += 1;
          return {
            message: turn === 1 ? callTool('add', { n: right ? target : 0 }) : callTool('submit'),
            usage: { promptTokens: 1, completionTokens: 1 },
          };
        },
      };
    },
  };
}
