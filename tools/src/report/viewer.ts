import type { Message, Trajectory } from '@harness-s/core';
import { routerArmLabel } from '../reproduce/settings.js';
import { escapeHtml } from './html.js';
import { groupsPerEnvironment, type PickedGroup } from './trajectory-picker.js';

const maximumChars = 1600;

/** Long text cut to its head and tail with a count of what was left out. */
function clip(text: string, limit = maximumChars): string {
  if (text.length <= limit) return escapeHtml(text);
  const head = Math.round(limit * 0.7);
  const tail = limit - head;
  return `${escapeHtml(text.slice(0, head))}<span class="elided">… ${text.length - limit} characters left out …</span>${escapeHtml(text.slice(-tail))}`;
}

/** A tool call's arguments: the single string argument as is (a query, a command), else JSON. */
function argumentsText(raw: string): string {
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const values = Object.values(parsed);
      if (values.length === 1 && typeof values[0] === 'string') return values[0];
    }
    return JSON.stringify(parsed, null, 1);
  } catch {
    return raw;
  }
}

/** Lines of a variant's system prompt that H0's lacks, and H0's lines it dropped. */
function promptDiff(system: string, h0System: string | undefined): string {
  if (h0System === undefined || system === h0System) return '';
  const mine = system
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const theirs = h0System
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const added = mine.filter((line) => !theirs.includes(line));
  const removed = theirs.filter((line) => !mine.includes(line));
  if (added.length + removed.length === 0) return '';
  return `<div class="prompt-diff"><div class="diff-title">prompt vs H0</div>${added.map((line) => `<div class="added">+ ${clip(line, 400)}</div>`).join('')}${removed.map((line) => `<div class="removed">− ${clip(line, 400)}</div>`).join('')}</div>`;
}

function messageHtml(message: Message, h0System: string | undefined): string {
  switch (message.role) {
    case 'system':
      return `<li class="msg system">${promptDiff(message.content, h0System)}<details class="system-prompt"><summary>system prompt · ${message.content.length} characters</summary><div class="text">${clip(message.content, 4000)}</div></details></li>`;
    case 'user':
      return `<li class="msg user"><div class="role">user</div><div class="text">${clip(message.content)}</div></li>`;
    case 'assistant': {
      const calls = (message.toolCalls ?? [])
        .map(
          (call) =>
            `<div class="call"><span class="tool-name">${escapeHtml(call.name)}</span><code>${clip(argumentsText(call.arguments), 800)}</code></div>`,
        )
        .join('');
      const text = message.content.trim() ? `<div class="text">${clip(message.content)}</div>` : '';
      return `<li class="msg assistant"><div class="role">assistant</div>${text}${calls}</li>`;
    }
    case 'tool':
      return `<li class="msg tool"><div class="role">observation</div><pre class="observation">${clip(message.content)}</pre></li>`;
  }
}

function outcomeBadge(trajectory: Trajectory): string {
  if (!trajectory.evaluation) return '<span class="badge infra">infrastructure error</span>';
  return trajectory.evaluation.success
    ? '<span class="badge ok">✓ solved</span>'
    : '<span class="badge fail">✗ failed</span>';
}

export function attemptHtml(trajectory: Trajectory, open: boolean, h0System: string | undefined): string {
  const turns = trajectory.turns.filter((turn) => turn.origin !== 'harness').length;
  const advantage = trajectory.training?.advantage;
  const meta = [
    `attempt ${trajectory.attempt + 1}`,
    `${turns} turn${turns === 1 ? '' : 's'}`,
    trajectory.stopReason === 'done' ? '' : trajectory.stopReason,
    advantage === undefined ? '' : `advantage ${advantage >= 0 ? '+' : ''}${advantage.toFixed(2)}`,
  ].filter(Boolean);
  const checks = (trajectory.evaluation?.checks ?? [])
    .map(
      (check) =>
        `<li class="${check.passed ? 'passed' : 'failed'}">${check.passed ? '✓' : '✗'} ${escapeHtml(check.name)}${check.detail ? `<span class="detail">${clip(check.detail, 300)}</span>` : ''}</li>`,
    )
    .join('');
  const state = trajectory.evaluation?.success ? 'success' : 'failure';
  return `<details class="attempt ${state}" data-harness="${escapeHtml(trajectory.harnessId)}"${open ? ' open' : ''}>
<summary title="${escapeHtml(`${trajectory.harnessId}, attempt ${trajectory.attempt + 1}`)}"><span class="mark">${trajectory.evaluation?.success ? '✓' : '✗'}</span><span class="harness">${escapeHtml(trajectory.harnessId)}</span>${outcomeBadge(trajectory)}<span class="meta">${escapeHtml(meta.join(' · '))}</span></summary>
<ol class="transcript">${trajectory.messages.map((message) => messageHtml(message, h0System)).join('')}</ol>
${checks ? `<ul class="checks">${checks}</ul>` : ''}
</details>`;
}

function laneHtml(
  title: string,
  kind: 'base' | 'rescue',
  attempts: readonly Trajectory[],
  h0System: string | undefined,
): string {
  const firstOpen =
    kind === 'base'
      ? 0
      : Math.max(
          0,
          attempts.findIndex((attempt) => attempt.evaluation?.success),
        );
  return `<div class="lane ${kind}"><h4>${escapeHtml(title)}</h4><div class="lane-columns">${attempts
    .map((attempt, index) => attemptHtml(attempt, index === firstOpen, kind === 'rescue' ? h0System : undefined))
    .join('')}</div></div>`;
}

/**
 * The line of a task prompt that says what to do: one that starts with `Task:` (AppWorld's
 * instructions open with the person's introduction), else the first line with text.
 */
export function taskLine(prompt: string): string {
  const lines = prompt.split('\n').map((line) => line.trim());
  return lines.find((line) => /^task:/i.test(line)) ?? lines.find(Boolean) ?? '';
}

const successes = (attempts: readonly Trajectory[]) => attempts.filter((attempt) => attempt.evaluation?.success).length;

function groupHtml(group: PickedGroup): string {
  const task = group.base[0]?.messages.find((message) => message.role === 'user')?.content ?? '';
  const h0System = group.base[0]?.messages.find((message) => message.role === 'system')?.content;
  const rescuer = group.method === 'harness-s' ? 'variants' : 'H0 again';
  return `<details class="group" data-group="${escapeHtml(group.groupId)}">
<summary><span class="group-task">${escapeHtml(group.taskId)}</span><span class="group-outcome">H0 ${successes(group.base)}/${group.base.length} → rescue ${successes(group.rescue)}/${group.rescue.length}</span><span class="group-meta">${escapeHtml(`${group.env} · ${group.method}${group.variant === 'main' ? '' : ` (${routerArmLabel(group.variant, group.base.length)})`} · seed ${group.seed} · step ${group.step}`)}</span><span class="group-text">${escapeHtml(taskLine(task).slice(0, 160))}</span></summary>
<div class="group-body"><div class="toolbar"><button type="button" data-attempts="open">Open all attempts</button><button type="button" data-attempts="close">Close all</button><span class="hint">Each column is one attempt; click a column’s header (or a closed strip) to open or close it.</span></div>
<div class="columns">${laneHtml(`Under H0: ${group.base.length} attempts, all failed`, 'base', group.base, h0System)}${laneHtml(`Rescue under ${rescuer}: ${successes(group.rescue)} of ${group.rescue.length} solved`, 'rescue', group.rescue, h0System)}</div></div>
</details>`;
}

/** The trajectory viewer: each picked group collapsed, opening to its attempts side by side. */
export function viewerSection(groups: readonly PickedGroup[]): string {
  if (groups.length === 0) {
    return '<p class="empty-note">No rescue group with a successful rescue attempt in this run folder: its methods do not rescue (grpo, mixture), no rescue succeeded, or its trajectories are missing.</p>';
  }
  return `<p class="section-note">A few of the groups whose K attempts under H0 all failed and whose rescue group solved the task at least once (up to ${groupsPerEnvironment} per environment, harness-s runs first, one group per task). Open a group to compare its attempts side by side.</p>${groups.map(groupHtml).join('\n')}`;
}
