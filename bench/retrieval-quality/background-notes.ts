/**
 * The everyday notes around the facts: standups, reminders, half-finished thoughts. They name the same people,
 * projects and services and the same topics the queries ask about (a "database migration", a "launch
 * checklist") but state none of the facts, so they are what a query's words also find.
 */
import { FEATURES, SKILLS, type Slots, WEEKDAYS, writtenDate } from './fact-templates.ts';
import type { RandomSource } from './random-source.ts';
import { CITIES, type World } from './world.ts';

export const BACKGROUND_NOTES: readonly string[] = [
  'Standup {$date}: {$person} is pairing with {$person2} on {$project}; no blockers.',
  '{$project} sync: talked about the {$topic}, no decision yet. Revisit next week.',
  "Need to review {$person}'s {pullRequest} for {$service} before {$weekday}.",
  '{$service} alerts were noisy overnight again; {$person} is looking into it.',
  'Coffee chat with {$person} about the {$team} roadmap.',
  'Read a good article on {$skill}; worth sharing with the {$team} {team}.',
  'Remember to update the {$project} status page after the {$weekday} demo.',
  '{$person} shared the slides from the {$team} all-hands.',
  'Idea: a dashboard for {$service} latency by region.',
  'Buy {$grocery} and {$grocery2} on the way home.',
  'Expense report for the {$city} trip is still pending.',
  '{$project} demo went well; {$person} got good questions about the {$topic}.',
  'Follow up with {$person} about access to the {$service} dashboards.',
  'Postmortem draft for the {$service} incident is due on {$weekday}.',
  '{$person} is covering on-call for the {$team} {team} this week.',
  'Write down the {$topic} trade-offs for {$project} before the next {meeting}.',
  'The {$team} {team} wants feedback on the new {$topic} guidelines.',
  'Blocked on {$project}: waiting for {$person} to approve the {$topic} change.',
  '{$person} mentioned that {$service} might be retired next year.',
  'Lunch with {$person} and {$person2} on {$weekday}.',
  'Add {$person} to the {$project} planning invite.',
  'TIL: `kubectl get events -n {$teamSlug} --sort-by=.lastTimestamp` shows what happened to a pod.',
  'Flaky test in {$service} again, the {$topic} one. Quarantined it for now.',
  '{$project} user interviews: people keep asking about the {$feature}.',
  'Cost review: {$service} spend went up after the {$topic} change.',
  '{$person} asked for a second pair of eyes on the {$project} {$topic} doc.',
  'Long {meeting} about the {$topic} today, we went round in circles.',
  'Book the {$city} hotel for the conference before prices go up.',
  '{$person} and {$person2} are presenting {$project} at the {$weekday} demo.',
  'Check whether {$service} still needs the {$topic} workaround.',
];

// biome-ignore format: a word list reads better filled than one word a line
const TOPICS = [
  'database migration', 'launch checklist', 'staging environment', 'deploy freeze', 'budget review', 'job queue',
  'on-call rotation', 'error budget', 'feature flag cleanup', 'signing key rotation', 'retro format', 'standup time',
  'time zone handling', 'log retention', 'reply templates', 'holiday calendar', 'team offsite', 'API style',
  'CI system', 'release cadence', 'language settings', 'restart procedure', 'port allocation',
];
const GROCERIES = ['oat milk', 'batteries', 'coffee beans', 'bread', 'lemons', 'dish soap', 'rice', 'tomatoes'];

/** Slots for one background note, from anywhere in the organisation. */
export const backgroundSlots = (world: World, random: RandomSource): Slots => {
  const [person, person2] = random.sample(world.people, 2);
  const team = random.pick(world.teams);
  const [grocery, grocery2] = random.sample(GROCERIES, 2);
  return {
    person: person?.name ?? '',
    person2: person2?.name ?? '',
    project: random.pick(world.projects).name,
    service: random.pick(world.services).name,
    team: team.name,
    teamSlug: team.slug,
    topic: random.pick(TOPICS),
    skill: random.pick(SKILLS),
    feature: random.pick(FEATURES),
    weekday: random.pick(WEEKDAYS),
    date: writtenDate(random),
    city: random.pick(CITIES).name,
    grocery: grocery ?? '',
    grocery2: grocery2 ?? '',
  };
};
