import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessSpec, ToolSpec, Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { dbbenchH0 } from '../dbbench.js';
import { createHarness } from '../harness.js';
import { checkTrajectoryCompliance, validateVariant } from './compliance.js';
import { environmentExtras } from './extras.js';
import { proposeChanges } from './operators.js';
import { deriveVariant } from './patch.js';
import { loadPool, writeVariant } from './pool.js';
import { variantId } from './variant-id.js';

const envTools: ToolSpec[] = [
  { name: 'execute_sql', description: '', parameters: {} },
  { name: 'commit_final_answer', description: '', parameters: {} },
];
const context = {
  skills: [{ name: 'inspect-table', description: 'look at the table' }],
  extras: environmentExtras('dbbench'),
};

function lookupVariant(): HarnessSpec {
  const h0 = dbbenchH0();
  const [change] = proposeChanges(
    h0,
    { name: 'schema-grounding', skills: ['inspect-table'], causes: [], tasks: [] },
    context,
  );
  return deriveVariant(h0, h0, change ?? (undefined as never));
}

/** The spec with `change` applied and its id recomputed, so only the intended check can fail. */
const tampered = (change: (spec: HarnessSpec) => HarnessSpec) => {
  const spec = change(lookupVariant());
  return { ...spec, id: variantId(spec) };
};

describe('validateVariant', () => {
  it('accepts a derived variant', () => {
    const spec = lookupVariant();
    expect(validateVariant(spec, 'v.json', { envTools, skills: ['inspect-table'] })).toEqual(spec);
  });

  it('accepts a variant derived from a change written by hand, with the defaults left out', () => {
    const h0 = dbbenchH0();
    // No `options`: the schema's default ({}) is part of the stored spec, and of its id.
    const transform = { kind: 'schema-lookup' } as HarnessSpec['tools'][number];
    const spec = deriveVariant(h0, h0, {
      operator: 'tool-transform',
      direction: 'schema-grounding',
      description: 'look up the schema first',
      operations: [{ op: 'add-tool-transform', transform }],
    });
    expect(spec.tools[0]?.options).toEqual({});
    expect(validateVariant(spec, 'v.json', { envTools })).toEqual(spec);
    // A change the schema refuses is named as the variant's, not as an id that does not match.
    expect(() =>
      deriveVariant(h0, h0, {
        operator: 'tool-transform',
        direction: 'schema-grounding',
        description: 'no kind',
        operations: [{ op: 'add-tool-transform', transform: { kind: '' } as never }],
      }),
    ).toThrow(/^variant of h0 \(no kind\): .*kind/);
  });

  it('rejects schema breaks, naming the field', () => {
    expect(() => validateVariant({ ...lookupVariant(), tools: [{ kind: 3 }] }, 'v.json')).toThrow(
      /^v\.json: tools\.0\.kind: /,
    );
    expect(() => validateVariant({ ...lookupVariant(), surprise: true }, 'v.json')).toThrow(/v\.json: .*surprise/);
  });

  it('rejects a variant that is not its base plus its patch, or whose id is not its content', () => {
    expect(() =>
      validateVariant(
        tampered((spec) => ({ ...spec, prompt: { ...spec.prompt, system: 'Say anything.' } })),
        'v.json',
      ),
    ).toThrow(/v\.json: prompt\.system: differs from 'h0' plus the patch/);
    expect(() => validateVariant({ ...lookupVariant(), id: 'v-000000000000' }, 'v.json')).toThrow(
      /v\.json: id: 'v-000000000000' is not the content-derived id/,
    );
    expect(() =>
      validateVariant(
        tampered((spec) => ({ ...spec, patch: undefined })),
        'v.json',
      ),
    ).toThrow(/patch: a variant must/);
  });

  it('rejects protocol changes: another codec, unknown transforms, foreign tools, unknown skills', () => {
    expect(() =>
      validateVariant(
        tampered((spec) => ({ ...spec, codec: { kind: 'dbbench-text' } })),
        'v.json',
      ),
    ).toThrow(/codec\.kind: differs from base 'h0'/);
    const unknownTransform = tampered((spec) => {
      const transform = { kind: 'paginate', options: {} };
      return {
        ...spec,
        tools: [transform],
        patch: { base: 'h0', operations: [{ op: 'add-tool-transform' as const, transform }] },
        prompt: dbbenchH0().prompt,
      };
    });
    expect(() => validateVariant(unknownTransform, 'v.json')).toThrow(
      /tools\.0\.kind: unknown tool transform 'paginate'/,
    );
    expect(() => validateVariant(lookupVariant(), 'v.json', { envTools: [envTools[1] as ToolSpec] })).toThrow(
      /tools\.0\.kind: transform 'schema-lookup' calls 'execute_sql', which the environment does not offer/,
    );
    expect(() => validateVariant(lookupVariant(), 'v.json', { skills: [] })).not.toThrow();
    const foreignSkill = tampered((spec) => {
      const directive = { id: 'r', text: 'Be quick.', direction: 'speed', skill: 'fly' };
      const operations = [...(spec.patch?.operations ?? []), { op: 'add-directive' as const, directive }];
      return {
        ...spec,
        prompt: { ...spec.prompt, directives: [...spec.prompt.directives, directive] },
        patch: { base: 'h0', operations },
      };
    });
    expect(() => validateVariant(foreignSkill, 'v.json', { skills: ['inspect-table'] })).toThrow(
      /prompt\.directives\.1\.skill: 'fly' is not a skill/,
    );
  });
});

describe('trajectory compliance', () => {
  const trajectory = (tool: string): Trajectory =>
    ({
      id: 'dev-1#v#0',
      turns: [
        {
          index: 0,
          actions: [
            {
              action: { tool, arguments: { query: 'SELECT 1' } },
              result: { observation: '', done: false },
              latencyMs: 0,
            },
          ],
        },
      ],
    }) as unknown as Trajectory;

  it('accepts actions H0 can emit and names the first one it cannot', () => {
    const h0 = createHarness(dbbenchH0());
    expect(checkTrajectoryCompliance([trajectory('execute_sql')], h0, envTools)).toEqual({ ok: true });
    expect(checkTrajectoryCompliance([trajectory('think')], h0, envTools)).toEqual({
      ok: false,
      reason: expect.stringContaining('dev-1#v#0 turn 0: H0 cannot emit think'),
    });
    const text = createHarness(dbbenchH0('dbbench-text'));
    const answer = { ...trajectory('x') };
    answer.turns = [
      {
        ...(answer.turns[0] as Trajectory['turns'][number]),
        actions: [
          {
            action: { tool: 'commit_final_answer', arguments: { answer_text: ' ["a"]' } },
            result: { observation: '', done: true },
            latencyMs: 0,
          },
        ],
      },
    ];
    expect(checkTrajectoryCompliance([answer], text, envTools)).toEqual({ ok: true });
  });
});

describe('loadPool', () => {
  it('loads the variants of a folder, skipping its index and summary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pool-'));
    const spec = lookupVariant();
    await writeVariant(dir, spec);
    await writeFile(join(dir, 'index.json'), '{}');
    await writeFile(join(dir, 'summary.json'), '{}');
    expect(await loadPool(dir)).toEqual([spec]);
  });

  it('orders the variants best first by the validation successes index.json records, then by id', async () => {
    const h0 = dbbenchH0();
    const changes = proposeChanges(
      h0,
      { name: 'schema-grounding', skills: ['inspect-table'], causes: [], tasks: [] },
      context,
    );
    const specs = changes.map((change) => deriveVariant(h0, h0, change));
    expect(specs.length).toBeGreaterThanOrEqual(2);
    const dir = await mkdtemp(join(tmpdir(), 'pool-'));
    for (const spec of specs) await writeVariant(dir, spec);
    const byId = specs.map((spec) => spec.id).sort();
    // Without an index (a folder made by hand): by id.
    expect((await loadPool(dir)).map((spec) => spec.id)).toEqual(byId);
    // The last by id solved the most; the others tie at none and keep their id order.
    const best = byId.at(-1) as string;
    const members = byId.map((id) => ({ id, validation: { perTask: { 'dev-1': id === best ? 3 : 0, 'dev-2': 0 } } }));
    await writeFile(join(dir, 'index.json'), JSON.stringify({ members }));
    expect((await loadPool(dir)).map((spec) => spec.id)).toEqual([best, ...byId.slice(0, -1)]);
  });

  it('names the file and the field of a bad variant', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pool-'));
    const spec = lookupVariant();
    await writeFile(
      join(dir, `${spec.id}.json`),
      JSON.stringify({ ...spec, execution: { ...spec.execution, maxSteps: 0 } }),
    );
    await expect(loadPool(dir)).rejects.toThrow(new RegExp(`${spec.id}\\.json: execution\\.maxSteps: `));
    const renamed = await mkdtemp(join(tmpdir(), 'pool-'));
    await writeFile(join(renamed, 'v-renamed.json'), JSON.stringify(spec));
    await expect(loadPool(renamed)).rejects.toThrow(/v-renamed\.json: id: .* does not match the file name/);
  });

  it('refuses a folder with no variant in it, and one that is not there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pool-'));
    await writeFile(join(dir, 'index.json'), '{}');
    await expect(loadPool(dir)).rejects.toThrow(`pool folder ${dir} holds no variant (no <id>.json`);
    await expect(loadPool(join(dir, 'missing'))).rejects.toThrow(/cannot read pool folder .*missing/);
    // A finished evolution that grew nothing is named as such, not as the wrong folder.
    await mkdir(join(dir, 'state'));
    await writeFile(join(dir, 'state', 'finished.json'), '{}');
    await expect(loadPool(dir)).rejects.toThrow(
      `pool folder ${dir} holds no variant: the evolution that wrote it grew none (an environment without the extras`,
    );
  });

  it("names the way out when a variant's base is not a built-in harness", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pool-'));
    const spec = lookupVariant();
    await writeFile(join(dir, `${spec.id}.json`), JSON.stringify({ ...spec, env: 'myenv' }));
    await expect(loadPool(dir)).rejects.toThrow(
      `patch.base: no built-in harness '${spec.patch?.base}' for environment 'myenv' (an environment of your own: registerBuiltInHarnesses('myenv', { ${spec.patch?.base}: ... }) first, or pass its base spec, e.g. loadPool(dir, { base }))`,
    );
  });
});
