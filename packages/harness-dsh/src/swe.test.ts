import type { Task } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { submitCommand, sweTextCodec } from './codecs/swe-text.js';
import { createHarness } from './harness.js';
import { resolveHarness } from './registry.js';
import { swegymH0 } from './swe.js';

const tools = [
  { name: 'bash', description: 'run', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  { name: 'submit', description: 'submit', parameters: { type: 'object', properties: {} } },
];

describe('SWE-Gym H0', () => {
  it('is a valid spec with bash and submit through tool calls, and no context cut of its own', async () => {
    const harness = await resolveHarness('swegym', 'h0');
    expect(harness.spec.env).toBe('swegym');
    expect(harness.codec.kind).toBe('tool-calls');
    expect(harness.codec.apiTools(tools).map((tool) => tool.name)).toEqual(['bash', 'submit']);
    expect(harness.spec.context.maxObservationChars).toBeNull();
    const task = { id: 't', env: 'swegym', split: 'dev', instruction: 'Fix the parser.', tags: [] } satisfies Task;
    const [system, user] = harness.start(task, tools);
    expect(system?.content).toContain('submit');
    expect(user?.content).toContain('<pr_description>');
    expect(user?.content).toContain('Fix the parser.');
    // An observation longer than any limit passes whole: the environment already cut it.
    const long = 'x'.repeat(50_000);
    const [observation] = harness.observe([
      {
        action: { tool: 'bash', arguments: { command: 'x' } },
        callId: 'c1',
        result: { observation: long, done: false },
      },
    ]);
    expect(observation?.content).toBe(long);
  });

  it('h0-text speaks mini-swe-agent: one bash block a reply, the echo command submits', async () => {
    const harness = createHarness(swegymH0('swe-text'));
    expect(harness.codec.apiTools(tools)).toEqual([]);
    const decoded = sweTextCodec.decode(
      { role: 'assistant', content: 'THOUGHT: look\n\n```bash\nls -la\ncat a.py\n```' },
      tools,
    );
    expect(decoded).toEqual({
      ok: true,
      actions: [{ action: { tool: 'bash', arguments: { command: 'ls -la\ncat a.py' } } }],
    });
    const submit = sweTextCodec.decode(
      { role: 'assistant', content: `Done.\n\`\`\`bash\n${submitCommand}\n\`\`\`` },
      tools,
    );
    expect(submit).toEqual({ ok: true, actions: [{ action: { tool: 'submit', arguments: {} } }] });
    const two = sweTextCodec.decode({ role: 'assistant', content: '```bash\nls\n```\n```bash\npwd\n```' }, tools);
    expect(two.ok).toBe(false);
    if (!two.ok) expect(two.error).toContain('found 2 actions');
    expect(sweTextCodec.decode({ role: 'assistant', content: 'no block' }, tools).ok).toBe(false);
  });

  it('encodes actions so that decoding gives them back', () => {
    for (const action of [
      { tool: 'bash', arguments: { command: "python3 - <<'EOF'\nprint(1)\nEOF" } },
      { tool: 'submit', arguments: {} },
    ]) {
      const message = sweTextCodec.encode([action], 'thinking');
      expect(sweTextCodec.decode(message, tools)).toEqual({ ok: true, actions: [{ action }] });
    }
  });
});
