import { describe, expect, it } from 'vitest';
import { appworldTask } from './__fixtures__/appworld-task.js';
import { appworldH0 } from './appworld.js';
import { codeBlockCodec } from './codecs/code-block.js';
import { createHarness } from './harness.js';
import { builtInHarnesses, resolveHarness } from './registry.js';

describe('code-block codec', () => {
  it('round-trips an execute action through encode and decode', () => {
    const action = { tool: 'execute', arguments: { code: 'var x = apis.music.show_song({ song_id: 3 });\nprint(x)' } };
    const message = codeBlockCodec.encode([action], 'Let me look at the song.');
    expect(message.content).toBe(`Let me look at the song.\n\n\`\`\`js\n${action.arguments.code}\n\`\`\``);
    expect(codeBlockCodec.decode(message, [])).toEqual({ ok: true, actions: [{ action }] });
  });

  it('runs only the first block, accepts python and bare fences, and reports a reply without code', () => {
    const two = {
      role: 'assistant' as const,
      content: 'First:\n```javascript\nprint(1)\n```\nthen\n```js\nprint(2)\n```',
    };
    expect(codeBlockCodec.decode(two, [])).toEqual({
      ok: true,
      actions: [{ action: { tool: 'execute', arguments: { code: 'print(1)' } } }],
    });
    const python = { role: 'assistant' as const, content: '```python\nprint(apis.supervisor.show_profile())\n```' };
    expect(codeBlockCodec.decode(python, [])).toMatchObject({ ok: true });
    const bare = { role: 'assistant' as const, content: '```\nprint(3)\n```' };
    expect(codeBlockCodec.decode(bare, [])).toMatchObject({
      ok: true,
      actions: [{ action: { arguments: { code: 'print(3)' } } }],
    });
    for (const content of ['I will think first.', '```js\n\n```', 'print(1)']) {
      expect(codeBlockCodec.decode({ role: 'assistant', content }, [])).toMatchObject({
        ok: false,
        error: expect.stringContaining('code block'),
      });
    }
  });
});

describe('H0 for AppWorld', () => {
  it('is a valid spec with the api_docs workflow, one block per turn and about 50 steps', async () => {
    const harness = createHarness(appworldH0());
    expect(harness.spec).toMatchObject({
      id: 'h0',
      env: 'appworld',
      codec: { kind: 'code-block' },
      execution: { maxSteps: 50 },
    });
    const task = appworldTask;
    const [system, user] = harness.start(task, []);
    expect(system?.content).toContain('apis.api_docs.show_api_doc');
    expect(system?.content).toContain('one small code block per reply');
    expect(user?.content).toBe(task.instruction);
    expect(builtInHarnesses('appworld')).toEqual([
      'h0',
      'h0-tools',
      'h0-python',
      'h0-python-tools',
      'minimal',
      'minimal-python',
    ]);
    expect((await resolveHarness('appworld', 'h0-tools')).codec.kind).toBe('tool-calls');
  });
});

describe('the code-block codec with several actions', () => {
  it('writes their code in one block, in order, so decoding the message runs all of it', () => {
    const first = { tool: 'execute', arguments: { code: 'print(1);' } };
    const second = { tool: 'execute', arguments: { code: 'print(2);' } };
    const message = codeBlockCodec.encode([first, second], 'Two steps.');
    expect(message.content).toBe('Two steps.\n\n```js\nprint(1);\n\nprint(2);\n```');
    expect(codeBlockCodec.decode(message, [])).toEqual({
      ok: true,
      actions: [{ action: { tool: 'execute', arguments: { code: 'print(1);\n\nprint(2);' } } }],
    });
  });
});
