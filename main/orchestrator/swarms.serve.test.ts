// Swarms through `switchboard serve` over real HTTP with a scripted mock provider: the coordinator delegates with
// the `delegate` tool, members vote; consensus reached, not reached (best answer), max_rounds honoured, validation.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, openEvents, type Json } from '../../test/support/agent-api.ts';
import { settled, useAgentServe } from '../../test/support/agent-serve.ts';
import type { MockProvider } from '../../test/support/mock-provider.ts';
import { bestRound, parseVote } from './swarms.ts';

// One worker: a coordinator waiting on its member must not starve it (the member runs in the coordinator's slot).
const world = useAgentServe('sb-swarms-', ['acme'], { orchestrator: { workers: 1 } });
let mock: MockProvider;
let key = '';
let api = '';

const finished = (swarm: string, id: string): Promise<Json> => settled(`${api}/swarms/${swarm}/tasks/${id}`, key);
const chats = (from: number) => mock.requests.filter((r) => r.url === '/v1/chat/completions').slice(from);

beforeAll(async () => {
  ({ mock } = world());
  [key] = world().keys;
  ({ api } = await world().serve());
  for (const name of ['lead', 'researcher', 'critic'])
    expect((await call(`${api}/agents`, key, 'POST', { name, model: 'mock-model' })).status).toBe(201);
}, 30_000);

describe('swarm votes', () => {
  it('reads a vote from its first word, and picks the most approved (latest of equals) round', () => {
    expect(parseVote('APPROVE: looks right')).toEqual({ approve: true, reasons: 'looks right' });
    expect(parseVote('**Reject** - needs units')).toEqual({ approve: false, reasons: 'needs units' });
    expect(parseVote('Hmm, not sure').approve).toBe(false);
    const r = (round: number, approvals: number) => ({
      round,
      approvals,
      proposal: `p${round}`,
      coordinator_task_id: null,
      contributions: [],
      votes: [],
    });
    expect(bestRound([r(1, 1), r(2, 0), r(3, 1)])?.proposal).toBe('p3');
    expect(bestRound([r(1, 2), r(2, 1)])?.proposal).toBe('p1');
  });
});

describe('swarms', () => {
  it('validates with 422 swarm_invalid listing every problem, and creates, lists and reads swarms', async () => {
    const bad = await call(`${api}/swarms`, key, 'POST', {
      name: 'bad',
      coordinator: 'ghost',
      agents: ['researcher', 'nobody', 'researcher'],
      config: { max_rounds: 0 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('swarm_invalid');
    expect(bad.body.error.details.map((d: Json) => d.field)).toEqual([
      'coordinator',
      'agents.1',
      'agents.2',
      'config.max_rounds',
    ]);
    const self = await call(`${api}/swarms`, key, 'POST', { name: 'bad', coordinator: 'lead', agents: ['lead'] });
    expect(self.body.error.details).toEqual([
      { field: 'agents.0', message: expect.stringContaining('is the coordinator') },
    ]);
    expect(
      (await call(`${api}/swarms`, key, 'POST', { name: 'bad', coordinator: 'lead', agents: [] })).body.error.details,
    ).toEqual([{ field: 'agents', message: 'must name at least one member agent' }]);

    for (const [name, config] of [
      ['panel', { max_rounds: 3, consensus_required: true }],
      ['stubborn', { max_rounds: 2, consensus_required: true }],
      ['solo', { max_rounds: 3 }],
    ] as const) {
      const c = await call(`${api}/swarms`, key, 'POST', {
        name,
        coordinator: 'lead',
        agents: ['researcher', 'critic'],
        config,
      });
      expect(c.status).toBe(201);
      expect(c.body.id).toMatch(/^swm_[a-f0-9]{24}$/);
    }
    expect(
      (await call(`${api}/swarms`, key, 'POST', { name: 'panel', coordinator: 'lead', agents: ['critic'] })).body.error
        .code,
    ).toBe('swarm_exists');
    expect((await call(`${api}/swarms/solo`, key)).body).toMatchObject({
      coordinator: 'lead',
      agents: ['researcher', 'critic'],
      config: { max_rounds: 3, consensus_required: false },
    });
    expect((await call(`${api}/swarms`, key)).body.data.map((s: Json) => s.name)).toEqual([
      'panel',
      'stubborn',
      'solo',
    ]);
    expect((await call(`${api}/swarms/none/tasks`, key, 'POST', { message: 'x' })).body.error.code).toBe(
      'swarm_not_found',
    );
    expect((await call(`${api}/swarms/panel/tasks`, key, 'POST', { context: {} })).status).toBe(400);
  });

  it('reaches consensus: the coordinator delegates (a member task in its slot), proposes, is rejected once, then approved', async () => {
    mock.setBehavior({
      script: [
        { toolCall: { name: 'delegate', arguments: { agent: 'researcher', task: 'Find the answer to 6*7' } } },
        { tokens: ['Fact: 42'] }, // the researcher's work
        { tokens: ['The answer is 42'] }, // round 1 proposal
        { tokens: ['APPROVE', ' it is right'] },
        { tokens: ['REJECT: say the units'] },
        { tokens: ['The answer is 42 apples'] }, // round 2 proposal
        { tokens: ['APPROVE'] },
        { tokens: ['Approve. Units are there now'] },
      ],
    });
    const from = mock.chatCount();
    const sub = await call(`${api}/swarms/panel/tasks`, key, 'POST', {
      message: 'How many apples?',
      context: { unit: 'apples' },
    });
    expect(sub.status).toBe(202);
    expect(sub.body.id).toMatch(/^stk_[a-f0-9]{24}$/);
    const events = await openEvents(`${api}/events?swarm_task_id=${sub.body.id}`, key, 0);
    const t = await finished('panel', sub.body.id);
    expect(t).toMatchObject({
      status: 'completed',
      consensus: true,
      final_answer: 'The answer is 42 apples',
      error: null,
    });
    expect(t.rounds).toHaveLength(2);
    const [r1, r2] = t.rounds;
    expect(r1.contributions).toEqual([
      expect.objectContaining({
        agent: 'researcher',
        instruction: 'Find the answer to 6*7',
        status: 'completed',
        output: 'Fact: 42',
      }),
    ]);
    expect(r1).toMatchObject({ proposal: 'The answer is 42', approvals: 1 });
    expect(r1.votes.map((v: Json) => [v.agent, v.approve, v.reasons])).toEqual([
      ['researcher', true, 'it is right'],
      ['critic', false, 'say the units'],
    ]);
    expect(r2).toMatchObject({ proposal: 'The answer is 42 apples', approvals: 2, contributions: [] });
    expect(t.usage.total_tokens).toBeGreaterThan(0);
    expect(mock.chatCount() - from).toBe(8);

    // What the models saw: the coordinator got the delegate tool and, in round 2, the objection.
    const seen = chats(from);
    expect(seen[0]!.body.tools.map((x: Json) => x.function.name)).toEqual(['delegate']);
    expect(seen[1]!.body.messages.at(-1).content).toContain('Find the answer to 6*7');
    expect(seen[2]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Fact: 42' });
    expect(seen[4]!.body.messages.at(-1).content).toContain('The answer is 42');
    expect(seen[5]!.body.messages.at(-1).content).toContain('- critic: say the units');

    // Every member's work is on the stream, tagged with the swarm task: coordinator, delegated member, votes.
    const got = await events.waitFor((e) => e.filter((x) => x.type === 'completed').length === 7);
    events.close();
    expect(got.every((e) => e.swarm_task_id === sub.body.id && e.swarm_id)).toBe(true);
    expect(got.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'delegate', input: { agent: 'researcher' } });
    // Leaving out the swarm task's own run-level events (run_started, step_started per round...).
    const agents = new Set(got.filter((e) => !/^(run|step)_/.test(e.type)).map((e) => e.agent_id));
    expect(agents.size).toBe(3);
    const member = (await call(`${api}/tasks/${r1.contributions[0].task_id}`, key)).body;
    expect(member).toMatchObject({
      status: 'completed',
      origin: { kind: 'swarm', swarm_task_id: sub.body.id, role: 'member', round: 1 },
    });
  });

  it('without consensus in max_rounds: ends with the best answer and consensus false, after exactly max_rounds rounds', async () => {
    mock.setBehavior({
      script: [
        { tokens: ['Plan A'] },
        { tokens: ['APPROVE'] },
        { tokens: ['REJECT too vague'] },
        { tokens: ['Plan B'] },
        { tokens: ['REJECT worse'] },
        { tokens: ['REJECT still vague'] },
      ],
      tokens: ['should never be asked'],
    });
    const from = mock.chatCount();
    const sub = await call(`${api}/swarms/stubborn/tasks`, key, 'POST', { message: 'Pick a plan' });
    const t = await finished('stubborn', sub.body.id);
    expect(t).toMatchObject({ status: 'completed', consensus: false, final_answer: 'Plan A' });
    expect(t.rounds.map((r: Json) => [r.round, r.proposal, r.approvals])).toEqual([
      [1, 'Plan A', 1],
      [2, 'Plan B', 0],
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mock.chatCount() - from).toBe(6);
  });

  it('honours max_rounds when members never approve (3 rounds: 3 coordinator turns, 6 votes, then stops)', async () => {
    mock.setBehavior({ tokens: ['no'] }); // every proposal is "no", every vote "no" (a rejection)
    const from = mock.chatCount();
    const sub = await call(`${api}/swarms/panel/tasks`, key, 'POST', { message: 'Endless?' });
    const t = await finished('panel', sub.body.id);
    expect(t).toMatchObject({ status: 'completed', consensus: false, final_answer: 'no' });
    expect(t.rounds).toHaveLength(3);
    expect(t.rounds.every((r: Json) => r.votes.length === 2 && r.approvals === 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(mock.chatCount() - from).toBe(9);
    mock.setBehavior({});
  });

  // Issue 35: a swarm task answered `id` where an agent run answers `task_id`.
  it('a swarm task answers task_id as an agent run does (and id, as before), on every route that shows it', async () => {
    await call(`${api}/swarms`, key, 'POST', { name: 'named', coordinator: 'lead', agents: ['researcher'] });
    mock.setBehavior({ tokens: ['ok'] });
    const st = await call(`${api}/swarms/named/tasks`, key, 'POST', { message: 'q' });
    expect(st.status).toBe(202);
    expect(st.body.task_id).toMatch(/^stk_[a-f0-9]{24}$/);
    expect(st.body.task_id).toBe(st.body.id);
    const waited = await call(`${api}/swarms/named/tasks/${st.body.task_id}/wait?timeout_s=20`, key);
    expect(waited.body).toMatchObject({ task_id: st.body.id, done: true });
    expect((await call(`${api}/swarms/named/tasks/${st.body.id}`, key)).body.task_id).toBe(st.body.id);
    expect((await call(`${api}/swarms/named/tasks`, key)).body.data[0].task_id).toBe(st.body.id);
    mock.setBehavior({});
  });

  it("without consensus_required: one round, the coordinator's answer, consensus null, no votes", async () => {
    mock.setBehavior({ tokens: ['Solo answer'] });
    const from = mock.chatCount();
    const sub = await call(`${api}/swarms/solo/tasks`, key, 'POST', { message: 'Just answer' });
    const t = await finished('solo', sub.body.id);
    expect(t).toMatchObject({ status: 'completed', consensus: null, final_answer: 'Solo answer' });
    expect(t.rounds).toHaveLength(1);
    expect(t.rounds[0].votes).toEqual([]);
    expect(mock.chatCount() - from).toBe(1);
    expect((await call(`${api}/swarms/solo/tasks`, key)).body.data.map((x: Json) => x.id)).toEqual([sub.body.id]);
    expect((await call(`${api}/swarms/solo/tasks/stk_nope`, key)).body.error.code).toBe('swarm_task_not_found');
    mock.setBehavior({});
  });
});
