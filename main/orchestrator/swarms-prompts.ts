// What swarm agents are told and how their answers are read: the coordinator's and the voters' prompts, a vote, and
// the best round when no proposal won every vote.
import type { Swarm, SwarmRound, SwarmTask } from '../../shared/orchestrator.ts';

/** A vote is an approval when its first word is approve/approved/agree/yes (any case); anything else rejects. */
export function parseVote(text: string): { approve: boolean; reasons: string } {
  const m = /^\W*(\w+)\W*([\s\S]*)$/.exec(text.trim());
  const word = (m?.[1] ?? '').toLowerCase();
  const approve = ['approve', 'approved', 'agree', 'yes'].includes(word);
  return { approve, reasons: (m?.[2] ?? '').trim() || text.trim() };
}

/** The round whose proposal most members approved; the latest of equals (it answered the most objections). */
export function bestRound(rounds: SwarmRound[]): SwarmRound | undefined {
  let best: SwarmRound | undefined;
  for (const r of rounds) if (r.proposal !== null && (!best || r.approvals >= best.approvals)) best = r;
  return best;
}

/** The coordinator's turn: the task, and from round 2 on its previous answer and the members' objections. */
export function coordinatorPrompt(swarm: Swarm, t: SwarmTask, round: number): string {
  const lines = [
    `You coordinate a swarm of agents: ${swarm.agents.join(', ')}.`,
    'Plan the work, hand parts of it to members with the `delegate` tool, then reply with the final answer only.',
    swarm.config.consensus_required ? 'Every member must approve your answer.' : '',
    '',
    `Task: ${t.message}`,
  ];
  const prev = t.rounds.filter((r) => r.round < round && r.proposal !== null).at(-1);
  if (prev) {
    const header = `Round ${round} of ${swarm.config.max_rounds}.`;
    lines.push('', `${header} Your previous answer was not approved by every member:`, prev.proposal as string);
    lines.push('', 'Objections:');
    for (const v of prev.votes.filter((k) => !k.approve)) lines.push(`- ${v.agent}: ${v.reasons}`);
    lines.push('', 'Answer again, addressing the objections.');
  }
  return lines.filter((l, i) => l !== '' || lines[i - 1] !== '').join('\n');
}

export function votePrompt(t: SwarmTask, proposal: string): string {
  return (
    `The coordinator of your swarm proposes this answer to the task "${t.message}":\n\n${proposal}\n\n` +
    'Reply with APPROVE or REJECT as the first word, then your reasons.'
  );
}
