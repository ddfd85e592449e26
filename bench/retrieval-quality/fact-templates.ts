/**
 * What the work memories say: one template family per attribute of a person, team, project or service. A
 * family writes the memory (`statements`), the newer statement that supersedes it (`updates`, with the old
 * value as `{$oldX}`), queries in the memory's own words (`direct`), in other words (`paraphrase`), asking for
 * the newest value (`latest`), and notes that share the query's words but do not answer it (`distractors`).
 * Templates use the lexicon (`{concept.form}`) and the fact's slots (`{$slot}`); see lexicon.ts.
 */
import type { RandomSource } from './random-source.ts';
import {
  CITIES,
  type City,
  managerOf,
  type Person,
  type Project,
  ROLES,
  type Service,
  type Team,
  type World,
} from './world.ts';

export type SubjectKind = 'person' | 'team' | 'project' | 'service';
export type Subject = Person | Team | Project | Service;
export type Slots = Record<string, string>;

export interface FactContext {
  readonly random: RandomSource;
  readonly world: World;
  /** A value not handed out before for this kind (ports, error codes, tickets). */
  unique(kind: string, make: () => string): string;
}

export interface FactTemplate {
  readonly attribute: string;
  readonly subject: SubjectKind;
  readonly kind: 'note' | 'belief';
  readonly ruleKey?: string;
  /** Facts of this attribute per subject. */
  readonly perSubject?: number;
  /** With several facts per subject, the slot that must differ between them (one decision per concern). */
  readonly distinctBy?: string;
  /** The share of subjects that have the attribute at all. */
  readonly coverage?: number;
  /**
   * The attribute's value (and anything else it needs); undefined when the subject cannot have it. Given the
   * current slots, a value the subject had before (what a superseded statement says); most attributes draw
   * both alike.
   */
  readonly slots: (subject: Subject, context: FactContext, current?: Slots) => Slots | undefined;
  /** Slots an update changes; their old values are `old` + the capitalised name. */
  readonly changes?: readonly string[];
  readonly statements: readonly string[];
  readonly updates?: readonly string[];
  /** Identifier lookups (hosts, codes, flags): their direct queries make the exact-term category. */
  readonly identifier?: boolean;
  readonly direct?: readonly string[];
  readonly paraphrase?: readonly string[];
  readonly latest?: readonly string[];
  readonly distractors?: readonly string[];
  readonly tags: (slots: Slots) => string[];
}

// biome-ignore format: a word list reads better filled than one word a line
const LANGUAGES = [
  'German', 'French', 'Spanish', 'Portuguese', 'Japanese', 'Dutch', 'Italian', 'Polish', 'Korean', 'Turkish',
  'Hindi', 'Swedish', 'English',
];
const NICKNAMES = ['Mo', 'Sunny', 'Jay', 'Kit', 'Bea', 'Nico', 'Alex', 'Sam', 'Dani', 'Lou', 'Rafa', 'Tess', 'Max'];
const DAYPARTS = ['early mornings', 'late mornings', 'early afternoons', 'late afternoons'];
const NOTIFY_CHANNELS = ['a Slack direct message', 'email', 'a comment on the ticket', 'a Teams chat'];
// biome-ignore format: a word list reads better filled than one word a line
export const SKILLS = [
  'Kafka', 'Terraform', 'accessibility audits', 'PostgreSQL query tuning', 'iOS release signing',
  'GDPR data requests', 'load testing', 'Kubernetes networking', 'OAuth flows', 'Elasticsearch mappings',
  'CSS grid layouts', 'pricing experiments', 'data retention rules', 'incident reviews', 'Android build times',
  'dbt models', 'WebSocket scaling', 'Figma component libraries', 'SQL window functions', 'feature experiments',
];
// biome-ignore format: a word list reads better filled than one word a line
const DIETS = [
  'is vegetarian', 'is vegan', 'is allergic to tree nuts', 'eats no pork', 'needs gluten-free food',
  'is lactose intolerant', 'does not eat shellfish', 'eats halal only',
];
// biome-ignore format: a word list reads better filled than one word a line
const DATABASES = [
  'PostgreSQL', 'DynamoDB', 'MySQL', 'MongoDB', 'Cassandra', 'SQLite', 'CockroachDB', 'Redis', 'ClickHouse',
  'Aurora MySQL',
];
const PROGRAMMING_LANGUAGES = ['Go', 'TypeScript', 'Kotlin', 'Rust', 'Python', 'Java', 'Scala', 'Elixir', 'Swift'];
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const REPO_SUFFIXES = ['web', 'api', 'core', 'service', 'app', 'platform', 'backend', 'client'];
// biome-ignore format: a word list reads better filled than one word a line
export const FEATURES = [
  'checkout flow', 'onboarding wizard', 'search filters', 'invoice export', 'dark mode', 'referral banner',
  'bulk upload', 'saved carts', 'usage dashboard', 'team invites', 'price alerts', 'offline mode',
];
const TICKET_SUMMARIES = [
  'checkout button submits the form twice',
  'invoice totals ignore the time zone offset',
  'password reset link expires too early',
  'search results flicker while typing',
  'push notifications arrive twice on Android',
  'CSV export drops rows with accents',
  'dashboard freezes when the date range is a full year',
  'retry loop floods the job queue',
  'login page ignores the preferred language',
  'staging certificate has expired',
  'rate limiter blocks the health check',
  'dark mode colours fail the contrast check',
  'webhook payloads arrive out of order',
  'session cookie is not renewed after deploy',
  'the budget report rounds cents the wrong way',
  'image uploads over 10 MB time out',
];
const ERROR_MEANINGS = [
  'the upstream token has expired',
  'the request went over the rate limit',
  'the schema version is unknown',
  'the idempotency key was reused with a different body',
  'the downstream queue is full',
  'the tenant has no active subscription',
  'the signature on the webhook does not match',
  'a required currency rate is missing',
  'the database connection pool is exhausted',
  'the uploaded file type is not allowed',
  'the caller lacks the billing scope',
  'the cache node is unreachable',
  'the payload is larger than the limit',
  'the clock skew between hosts is too large',
];
const REMEDIES = [
  'refresh the token and retry',
  'back off and retry after a minute',
  'redeploy with the latest schema bundle',
  'send a new idempotency key',
  'scale the consumers up before retrying',
  'check the subscription in the admin panel',
  'rotate the webhook secret on both sides',
  'rerun the nightly rates import',
  'restart the pool and check for leaks',
  'ask the customer to convert the file',
  'add the scope to the client in the console',
  'fail over to the replica node',
  'split the payload into smaller batches',
  'resync NTP on the host',
];
const CONCERNS: readonly { readonly concern: string; readonly options: readonly string[] }[] = [
  { concern: 'job queue', options: ['SQS', 'RabbitMQ', 'Kafka', 'Redis Streams', 'NATS'] },
  { concern: 'CI system', options: ['GitHub Actions', 'Buildkite', 'GitLab CI', 'Jenkins', 'CircleCI'] },
  { concern: 'frontend framework', options: ['React', 'Svelte', 'Vue', 'Angular', 'Solid'] },
  { concern: 'hosting region', options: ['eu-west-1', 'eu-central-1', 'us-east-2', 'ap-southeast-2', 'ca-central-1'] },
  { concern: 'error tracker', options: ['Sentry', 'Rollbar', 'Bugsnag', 'Honeybadger'] },
  { concern: 'release cadence', options: ['weekly releases', 'fortnightly releases', 'monthly releases'] },
  { concern: 'API style', options: ['REST', 'GraphQL', 'gRPC'] },
  { concern: 'feature flag service', options: ['LaunchDarkly', 'Unleash', 'Flagsmith', 'GrowthBook'] },
];
const ROOMS = [
  'Atrium',
  'the Library',
  'Room 4.12',
  'the Greenhouse',
  'Harbour',
  'the Loft',
  'Room 2.03',
  'Lighthouse',
];
// biome-ignore format: a word list reads better filled than one word a line
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November',
  'December',
];

/** "a" or "an" before a word, by its first letter (good enough for the roles here). */
export const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** A date in 2026 between two months (1-12), written in one of the ways people write dates. */
export const writtenDate = (random: RandomSource, fromMonth = 1, toMonth = 12): string => {
  const month = random.int(fromMonth, toMonth);
  const day = random.int(1, 28);
  const name = MONTHS[month - 1] as string;
  switch (random.int(0, 2)) {
    case 0:
      return `${day} ${name}`;
    case 1:
      return `${name} ${day}`;
    default:
      return `2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  }
};

const clockTime = (random: RandomSource, fromHour: number, toHour: number): string =>
  `${String(random.int(fromHour, toHour)).padStart(2, '0')}:${random.pick(['00', '15', '30', '45'])}`;

const asPerson = (subject: Subject): Person => subject as Person;
const asTeam = (subject: Subject): Team => subject as Team;
const asProject = (subject: Subject): Project => subject as Project;
const asService = (subject: Subject): Service => subject as Service;

const hostOf = (project: Project, context: FactContext): string =>
  context.unique('host', () => `stg-${project.slug}-${String(context.random.int(1, 19)).padStart(2, '0')}.internal`);
const portOf = (context: FactContext): string => context.unique('port', () => String(context.random.int(3000, 9899)));
const cityOf = (random: RandomSource): City => random.pick(CITIES);

const personTag = (slots: Slots): string => `person:${slots.personSlug}`;

export const FACT_TEMPLATES: readonly FactTemplate[] = [
  // Beliefs: what a principal prefers and who they are, one per rule key.
  {
    attribute: 'response.language',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'response.language',
    slots: (_, { random }) => ({ language: random.pick(LANGUAGES) }),
    changes: ['language'],
    statements: ['{$person} {prefer.s} {answer.s} in {$language}.', 'Always {respond} to {$person} in {$language}.'],
    updates: [
      '{$person} now {prefer.s} {answer.s} in {$language} instead of {$oldLanguage}.',
      'From now on, {respond} to {$person} in {$language}, not {$oldLanguage}.',
    ],
    direct: ['Which language does {$person} {prefer} {answer.s} in?'],
    paraphrase: [
      'In which language should I {respond} to {$person}?',
      'What language does {$person} {prefer} for {answer.s}?',
    ],
    latest: [
      'Which language does {$person} {prefer} {answer.s} in now?',
      'What is the {latest} language {$person} {prefer.s} for {answer.s}?',
    ],
    distractors: ['{$person} asked whether the {answer} templates in the help centre could be translated.'],
    tags: () => ['preference'],
  },
  {
    attribute: 'response.length',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'response.length',
    slots: (_, { random }) => ({ length: random.pick(['brief', 'lengthy']) }),
    statements: ['{$person} {prefer.s} {@length} {answer.s}.', 'Keep {answer.s} to {$person} {@length}.'],
    direct: ['Does {$person} {prefer} {@length} {answer.s}?'],
    paraphrase: ['How much detail does {$person} {prefer} in {answer.s}?', 'What {answer} length suits {$person}?'],
    distractors: ['{$person} thought the {answer.s} in the incident channel were getting out of hand.'],
    tags: () => ['preference'],
  },
  {
    attribute: 'response.tone',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'response.tone',
    slots: (_, { random }) => ({ tone: random.pick(['formal', 'casual']) }),
    changes: ['tone'],
    statements: [
      '{$person} {prefer.s} a {tone} that is {@tone}.',
      'Keep the {tone} {@tone} when writing to {$person}.',
    ],
    updates: ['Keep the {tone} {@tone} with {$person} from now on; {@oldTone} felt wrong to them.'],
    direct: ['What {tone} does {$person} {prefer}?'],
    paraphrase: ['How should I word messages to {$person}?', 'What {tone} of writing works for {$person}?'],
    latest: ['What {tone} does {$person} {prefer} now?'],
    tags: () => ['preference'],
  },
  {
    attribute: 'response.format',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'response.format',
    slots: (_, { random }) => ({ format: random.pick(['bullets', 'prose']) }),
    statements: ['{$person} {prefer.s} {answer.s} as {@format}.', 'Format {answer.s} for {$person} as {@format}.'],
    direct: ['Does {$person} {prefer} {answer.s} as {@format}?'],
    paraphrase: ['How should I lay out {answer.s} for {$person}?', 'What {answer} layout does {$person} {prefer}?'],
    tags: () => ['preference'],
  },
  {
    attribute: 'timezone',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'timezone',
    slots: (subject) => ({ zone: asPerson(subject).city.zone }),
    statements: ["{$person}'s {timezone} is {$zone}.", '{$person} works in the {$zone} {timezone}.'],
    direct: ['What {timezone} is {$person} in?'],
    paraphrase: ['What {timezone} does {$person} keep?', 'Which clock does {$person} work by?'],
    tags: () => ['profile'],
  },
  {
    attribute: 'location',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'location',
    slots: (subject, { random }, current) => ({
      city: current ? cityOf(random).name : asPerson(subject).city.name,
      otherCity: cityOf(random).name,
    }),
    changes: ['city'],
    statements: ['{$person} {live.s} {$city}.'],
    updates: ['{$person} {move.ed} from {$oldCity} to {$city}.'],
    direct: ['Where {live.q}?'],
    paraphrase: ['Which city {live.qin}?', "Where is {$person}'s home base?"],
    latest: ['Where {live.q} now?', 'Which city {live.qin} these days?'],
    distractors: ['{$person} flew to {$otherCity} for a customer workshop.'],
    tags: () => ['profile'],
  },
  {
    attribute: 'role',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'role',
    slots: (subject, { random }, current) => {
      const role = current ? random.pick(ROLES) : asPerson(subject).role;
      return { aRole: withArticle(role), role };
    },
    changes: ['aRole', 'role'],
    statements: ['{$person} {work.s} {$aRole}.', "{$person}'s {job} is {$role}."],
    updates: ['{$person} changed {job}s: now {$aRole}, previously {$oldARole}.'],
    direct: ["What is {$person}'s {job}?"],
    paraphrase: ['What does {$person} do for a living?', 'What {job} does {$person} hold?'],
    latest: ["What is {$person}'s {latest} {job}?"],
    distractors: ['{$person} is interviewing candidates for the open {job} on the {$team} team.'],
    tags: () => ['profile'],
  },
  {
    attribute: 'preferred_name',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'preferred_name',
    coverage: 0.6,
    slots: (_, { random }) => ({ nickname: random.pick(NICKNAMES) }),
    statements: [
      '{$person} {prefer.s} to be {call.ed} {$nickname}.',
      'Use "{$nickname}" for {$person}, not the full name.',
    ],
    direct: ['What does {$person} {prefer} to be {call.ed}?'],
    paraphrase: ['What name does {$person} go by?', 'What should I {call.q}?'],
    tags: () => ['profile'],
  },
  {
    attribute: 'meeting.preferred_time',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'meeting.preferred_time',
    coverage: 0.5,
    slots: (_, { random }) => ({ daypart: random.pick(DAYPARTS) }),
    statements: ['{$person} {prefer.s} {meeting.s} in {$daypart}.', 'Book {meeting.s} with {$person} for {$daypart}.'],
    direct: ['When does {$person} {prefer} {meeting.s}?'],
    paraphrase: ['What is the best time of day to schedule a {meeting} with {$person}?'],
    tags: () => ['preference'],
  },
  {
    attribute: 'notification.channel',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'notification.channel',
    coverage: 0.5,
    slots: (_, { random }) => ({ via: random.pick(NOTIFY_CHANNELS) }),
    statements: ['{$person} {prefer.s} to be {contact.ed} by {$via}.'],
    direct: ['How does {$person} {prefer} to be {contact.ed}?'],
    paraphrase: ['What is the best way to {contact} {$person}?'],
    tags: () => ['preference'],
  },
  {
    attribute: 'review.max_lines',
    subject: 'person',
    kind: 'belief',
    ruleKey: 'review.max_lines',
    coverage: 0.4,
    slots: (_, { random }) => ({ lines: String(random.pick([150, 200, 300, 400, 500])) }),
    statements: ['{$person} {prefer.s} {small} {pullRequest.s} of under {$lines} lines for review.'],
    direct: ['How big a {pullRequest} will {$person} review?'],
    paraphrase: ['How large can a {pullRequest} be when I ask {$person} to look at it?'],
    tags: () => ['preference'],
  },
  // Notes about people.
  {
    attribute: 'person.team',
    subject: 'person',
    kind: 'note',
    slots: () => ({}),
    statements: ['{$person} is on the {$team} {team}.', '{$person} works in the {$team} {team}.'],
    direct: ['Which {team} is {$person} on?'],
    paraphrase: ['Which {team} does {$person} belong to?', 'What {team} is {$person} part of?'],
    tags: (slots) => ['people', personTag(slots), `team:${slots.teamSlug}`],
  },
  {
    attribute: 'person.manager',
    subject: 'person',
    kind: 'note',
    slots: (subject, { world }) => {
      const manager = managerOf(asPerson(subject), world);
      return manager ? { manager: manager.name, managerSlug: manager.slug } : undefined;
    },
    statements: ['{$person} {reportTo.s} {$manager}.', "{$manager} is {$person}'s {manager}."],
    direct: ["Who is {$person}'s {manager}?"],
    paraphrase: ["Who is {$person}'s {manager}?", 'Who does {$person} work for?'],
    distractors: ['{$person} has a one-to-one with their {manager} every other Thursday.'],
    tags: (slots) => ['people', personTag(slots), `person:${slots.managerSlug}`],
  },
  {
    attribute: 'person.holiday',
    subject: 'person',
    kind: 'note',
    coverage: 0.5,
    slots: (_, { random }) => {
      const month = random.int(2, 11);
      const day = random.int(1, 18);
      const name = MONTHS[month - 1] as string;
      return { start: `${day} ${name}`, end: `${day + random.int(3, 10)} ${name}` };
    },
    changes: ['start', 'end'],
    statements: ['{$person} is on {holiday} from {$start} to {$end}.', '{$person} will be {away} {$start} to {$end}.'],
    updates: ['{$person} moved their {holiday} to {$start} to {$end} (it was {$oldStart} to {$oldEnd}).'],
    direct: ['When is {$person} on {holiday}?'],
    paraphrase: ['When is {$person} {away}?', 'Which dates is {$person} taking {holiday}?'],
    latest: ["What are {$person}'s {latest} {holiday} dates?"],
    distractors: ['Remind {$person} to submit the {holiday} request form before the end of the quarter.'],
    tags: (slots) => ['people', personTag(slots), 'calendar'],
  },
  {
    attribute: 'person.expertise',
    subject: 'person',
    kind: 'note',
    coverage: 0.7,
    slots: (_, { random }) => ({ skill: random.pick(SKILLS) }),
    statements: ['{$person} is the {expert} for {$skill} {question.s}.', 'Ask {$person} about anything {$skill}.'],
    direct: ['Who is the {expert} for {$skill}?'],
    paraphrase: ['Who can {help} me with {$skill}?', 'Who knows the most about {$skill} here?'],
    distractors: ['The {$skill} {question.s} in the wiki are out of date; someone should refresh them.'],
    tags: (slots) => ['people', personTag(slots), 'expertise'],
  },
  {
    attribute: 'person.diet',
    subject: 'person',
    kind: 'note',
    coverage: 0.5,
    slots: (_, { random }) => ({ diet: random.pick(DIETS) }),
    statements: ['Team dinners: {$person} {$diet}.', 'When ordering {food} for the team, note that {$person} {$diet}.'],
    direct: ['Is there anything {$person} cannot eat when we order {food}?'],
    paraphrase: ['What should we keep in mind about {$person} when ordering {food}?', 'What can {$person} not {eat}?'],
    tags: (slots) => ['people', personTag(slots), 'events'],
  },
  {
    attribute: 'person.joined',
    subject: 'person',
    kind: 'note',
    coverage: 0.5,
    slots: (_, { random }) => ({ date: `${random.int(1, 28)} ${random.pick(MONTHS)} ${random.int(2017, 2025)}` }),
    statements: ['{$person} {join.ed} the {company} on {$date}.'],
    direct: ['When did {$person} {join} the {company}?'],
    paraphrase: ['When did {$person} {join} the {company}?', 'How long has {$person} been with the {company}?'],
    tags: (slots) => ['people', personTag(slots)],
  },
  // Teams.
  {
    attribute: 'team.lead',
    subject: 'team',
    kind: 'note',
    slots: (subject) => {
      const lead = asTeam(subject).lead;
      return lead ? { lead: lead.name, leadSlug: lead.slug } : undefined;
    },
    statements: ['{$lead} {lead.s} the {$team} {team}.', '{$lead} is the {manager} of the {$team} {team}.'],
    direct: ['Who {lead.s} the {$team} {team}?'],
    paraphrase: ['Who is in charge of the {$team} {team}?', 'Who {lead.s} {$team}?'],
    distractors: ['The {$team} {team} is hiring a second {manager}; interviews start next month.'],
    tags: (slots) => ['people', `team:${slots.teamSlug}`, `person:${slots.leadSlug}`],
  },
  {
    attribute: 'team.channel',
    subject: 'team',
    kind: 'note',
    identifier: true,
    slots: (subject) => ({ channel: asTeam(subject).channel }),
    statements: [
      "The {$team} {team}'s Slack {channel} is #{$channel}.",
      '#{$channel} is where the {$team} {team} talks.',
    ],
    direct: ['#{$channel}', 'Which {team} uses #{$channel}?'],
    paraphrase: ['Where does the {$team} {team} chat on Slack?'],
    tags: (slots) => [`team:${slots.teamSlug}`, 'slack'],
  },
  {
    attribute: 'team.standup',
    subject: 'team',
    kind: 'note',
    slots: (subject, { random }) => ({
      time: clockTime(random, 8, 10),
      zone: asTeam(subject).lead?.city.zone ?? 'UTC',
    }),
    changes: ['time'],
    statements: ['The {$team} {standup} is at {$time} ({$zone}) {daily}.'],
    updates: ['The {$team} {standup} moved from {$oldTime} to {$time} ({$zone}).'],
    direct: ['When is the {$team} {standup}?'],
    paraphrase: ['What time does the {$team} {team} meet each morning?'],
    latest: ['When is the {$team} {standup} now?'],
    tags: (slots) => [`team:${slots.teamSlug}`, 'calendar'],
  },
  {
    attribute: 'team.offsite',
    subject: 'team',
    kind: 'note',
    slots: (_, { random }) => ({ city: cityOf(random).name, date: writtenDate(random, 3, 11) }),
    changes: ['date'],
    statements: ['The {$team} {offsite} is in {$city} on {$date}.'],
    updates: ['The {$team} {offsite} in {$city} is {postpone.ed} to {$date} (was {$oldDate}).'],
    direct: ['When is the {$team} {offsite}?'],
    paraphrase: ['Where is the {$team} {team} going for its {offsite}?'],
    latest: ['When is the {$team} {offsite} now?', 'What is the {latest} date for the {$team} {offsite}?'],
    distractors: ['Collecting ideas for activities at the {$team} {offsite}; add yours to the doc.'],
    tags: (slots) => [`team:${slots.teamSlug}`, 'events'],
  },
  // Projects.
  {
    attribute: 'project.team',
    subject: 'project',
    kind: 'note',
    slots: () => ({}),
    statements: ['The {$team} {team} {own.s} {$project}.', '{$project} is {own.ed} the {$team} {team}.'],
    direct: ['Which {team} {own.s} {$project}?'],
    paraphrase: ['Which {team} {own.q} {$project}?'],
    tags: (slots) => [`project:${slots.projectSlug}`, `team:${slots.teamSlug}`],
  },
  {
    attribute: 'project.lead',
    subject: 'project',
    kind: 'note',
    slots: (subject) => ({ lead: asProject(subject).lead.name, leadSlug: asProject(subject).lead.slug }),
    statements: ['{$lead} is the {techLead} for {$project}.', "{$project}'s {techLead} is {$lead}."],
    direct: ['Who is the {techLead} for {$project}?'],
    paraphrase: ['Who {lead.s} engineering on {$project}?', 'Who makes the technical calls on {$project}?'],
    tags: (slots) => [`project:${slots.projectSlug}`, `person:${slots.leadSlug}`],
  },
  {
    attribute: 'project.database',
    subject: 'project',
    kind: 'note',
    slots: (_, { random }) => ({ db: random.pick(DATABASES) }),
    changes: ['db'],
    statements: ['{$project} {store.s} its {data} in {$db}.', '{$project} {use.s} {$db} as its {database}.'],
    updates: ['{$project} migrated its {data} from {$oldDb} to {$db}.'],
    direct: ['What {database} does {$project} {use}?'],
    paraphrase: ['Which {database} is behind {$project}?', 'Where does {$project} {store} its {data}?'],
    latest: ['Which {database} does {$project} {use} now?', 'What is the {latest} {database} for {$project}?'],
    distractors: [
      '{$project} {database} backups are checked every Monday.',
      'Read-only access to the {$project} {database} needs a ticket.',
    ],
    tags: (slots) => [`project:${slots.projectSlug}`, 'architecture'],
  },
  {
    attribute: 'project.language',
    subject: 'project',
    kind: 'note',
    slots: (_, { random }) => ({ lang: random.pick(PROGRAMMING_LANGUAGES) }),
    statements: ['{$project} is {write.ed} {$lang}.', 'All of the {$project} {code} is {$lang}.'],
    direct: ['What is {$project} {write.ed}?'],
    paraphrase: [
      'Which programming language is {$project} {write.ed}?',
      'What language do I need to know to work on {$project}?',
    ],
    tags: (slots) => [`project:${slots.projectSlug}`, 'architecture'],
  },
  {
    attribute: 'project.launch',
    subject: 'project',
    kind: 'note',
    slots: (_, { random }) => ({ date: writtenDate(random, 3, 12) }),
    changes: ['date'],
    statements: ['{$project} {launch.s} on {$date}.', 'The {$project} {launch.noun} is {plan.ed} for {$date}.'],
    updates: ['The {$project} {launch.noun} is {postpone.ed} to {$date} (was {$oldDate}).'],
    direct: ['When is the {$project} {launch.noun}?'],
    paraphrase: ['When does {$project} {launch}?', 'What date will {$project} be available to customers?'],
    latest: ['What is the {latest} {launch.noun} date for {$project}?', 'When does {$project} {launch} now?'],
    distractors: [
      'Drafted the {$project} {launch.noun} announcement; waiting on legal review.',
      'The {$project} {launch.noun} checklist lives in the team wiki.',
    ],
    tags: (slots) => [`project:${slots.projectSlug}`, 'calendar'],
  },
  {
    attribute: 'project.staging',
    subject: 'project',
    kind: 'note',
    identifier: true,
    slots: (subject, context) => ({
      host: hostOf(asProject(subject), context),
      port: portOf(context),
      otherHost: hostOf(asProject(subject), context),
    }),
    changes: ['host'],
    statements: [
      'The {staging} environment for {$project} {run.s} {$host}, port {$port}.',
      '{$project} {staging} environment: {$host}:{$port}.',
    ],
    updates: ['The {staging} environment for {$project} moved to {$host} (was {$oldHost}).'],
    direct: ['{$host}', 'Which project {run.s} {$host}?'],
    paraphrase: ['Where is the {staging} environment for {$project} hosted?'],
    latest: ['What is the {latest} {staging} host for {$project}?'],
    distractors: ['Ticket open to decommission {$otherHost}, an old {$project} box.'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'environments'],
  },
  {
    attribute: 'project.deploy_day',
    subject: 'project',
    kind: 'note',
    slots: (_, { random }) => ({ weekday: random.pick(WEEKDAYS) }),
    changes: ['weekday'],
    statements: ['{$project} {deploy.s} on {$weekday}s {only}.', 'No {$project} {deploy.noun} except on {$weekday}s.'],
    updates: ['{$project} {deploy.noun} moved from {$oldWeekday}s to {$weekday}s.'],
    direct: ['Which day does {$project} {deploy}?'],
    paraphrase: ['Which day of the week can I {deploy} {$project}?', 'When is {$project} allowed to go to production?'],
    latest: ['Which day does {$project} {deploy} on now?'],
    distractors: ['{$project} {deploy.noun} were slow this week because the build cache was cold.'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'process'],
  },
  {
    attribute: 'project.repo',
    subject: 'project',
    kind: 'note',
    identifier: true,
    slots: (subject, context) => ({
      repo: context.unique('repo', () => `acme/${asProject(subject).slug}-${context.random.pick(REPO_SUFFIXES)}`),
    }),
    statements: [
      'The {$project} {code} lives in the {$repo} {repository}.',
      '{$repo} is the {repository} for {$project}.',
    ],
    direct: ['{$repo}', 'What is in the {$repo} {repository}?'],
    paraphrase: ['Where can I find the {code} for {$project}?'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'code'],
  },
  {
    attribute: 'project.flag',
    subject: 'project',
    kind: 'note',
    identifier: true,
    slots: (subject, context) => {
      const feature = context.random.pick(FEATURES);
      const flagName = context.unique('flag', () => `ff_${asProject(subject).slug}_${feature.replace(/ /g, '_')}`);
      return { feature, flagName };
    },
    statements: ['The new {$feature} in {$project} is {hidden} the {flag} {$flagName}.'],
    direct: ['{$flagName}', 'What does {$flagName} control?'],
    paraphrase: ['How do I switch on the new {$feature} in {$project}?'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'flags'],
  },
  {
    attribute: 'project.budget',
    subject: 'project',
    kind: 'note',
    coverage: 0.7,
    slots: (_, { random }) => ({ amount: `€${random.int(4, 60) * 5},000` }),
    statements: ['{$project} has a 2026 {budget} of {$amount}.'],
    direct: ['What is the {$project} {budget}?'],
    paraphrase: ['How much {money} does {$project} have to spend this year?'],
    distractors: ['The {$project} {budget} review slipped to next quarter.'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'finance'],
  },
  {
    attribute: 'project.ticket',
    subject: 'project',
    kind: 'note',
    identifier: true,
    perSubject: 2,
    slots: (subject, context) => ({
      ticket: context.unique(
        'ticket',
        () => `${asProject(subject).slug.slice(0, 3).toUpperCase()}-${context.random.int(100, 9999)}`,
      ),
      summary: context.random.pick(TICKET_SUMMARIES),
    }),
    statements: ['{bug} {$ticket} in {$project}: {$summary}.'],
    direct: ['{$ticket}', 'What is {$ticket} about?'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'bugs'],
  },
  {
    attribute: 'project.decision',
    subject: 'project',
    kind: 'note',
    perSubject: 2,
    distinctBy: 'concern',
    slots: (_, { random }, current) => {
      // An earlier decision is about the same concern.
      const { concern, options } = CONCERNS.find((item) => item.concern === current?.concern) ?? random.pick(CONCERNS);
      return { concern, option: random.pick(options), date: writtenDate(random, 1, 6) };
    },
    changes: ['option'],
    statements: [
      'Decision ({$date}): {$project} will {use} {$option} for the {$concern}.',
      'We {decide.ed} {$option} as the {$concern} for {$project}.',
    ],
    updates: ['Change of plan: {$project} now {use.s} {$option} for the {$concern} instead of {$oldOption}.'],
    direct: ['What did we {decide} for the {$project} {$concern}?'],
    paraphrase: ['Which {$concern} was picked for {$project}?'],
    latest: [
      'What did we {decide} last for the {$project} {$concern}?',
      'Which {$concern} is {$project} using after the {latest} {decide.noun}?',
    ],
    distractors: ['Open question for {$project}: who maintains the {$concern} config?'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'decisions'],
  },
  {
    attribute: 'project.retro',
    subject: 'project',
    kind: 'note',
    coverage: 0.7,
    slots: (_, { random }) => ({
      date: writtenDate(random, 2, 11),
      time: clockTime(random, 10, 16),
      room: random.pick(ROOMS),
    }),
    changes: ['date', 'time'],
    statements: ['The {$project} {retro} is on {$date} at {$time} in {$room}.'],
    updates: ['The {$project} {retro} moved to {$date} at {$time} (was {$oldDate}).'],
    direct: ['When is the {$project} {retro}?'],
    paraphrase: ['When is the {$project} {retro} {meeting}?'],
    latest: ['When is the {$project} {retro} now?'],
    distractors: ['Notes from the {$project} {retro} are in the shared drive.'],
    tags: (slots) => [`project:${slots.projectSlug}`, 'calendar'],
  },
  // Services and their runbooks.
  {
    attribute: 'service.owner',
    subject: 'service',
    kind: 'note',
    slots: () => ({}),
    statements: ['{$service} is {own.ed} the {$team} {team}.', 'The {$team} {team} {own.s} {$service}.'],
    direct: ['Which {team} {own.s} {$service}?'],
    paraphrase: ['Which {team} {own.q} {$service}?'],
    tags: (slots) => [`service:${slots.service}`, `team:${slots.teamSlug}`],
  },
  {
    attribute: 'service.error',
    subject: 'service',
    kind: 'note',
    identifier: true,
    perSubject: 2,
    slots: (_, context) => {
      const index = context.random.int(0, ERROR_MEANINGS.length - 1);
      return {
        code: context.unique('error', () => `E${context.random.int(1000, 9899)}`),
        meaning: ERROR_MEANINGS[index] as string,
        remedy: REMEDIES[index] as string,
      };
    },
    statements: ['{$code} from {$service} {mean.s} {$meaning}. {fix.imp}: {$remedy}.'],
    direct: ['What does {$code} mean?', '{$service} {$code}'],
    tags: (slots) => [`service:${slots.service}`, 'errors'],
  },
  {
    attribute: 'service.port',
    subject: 'service',
    kind: 'note',
    identifier: true,
    slots: (_, context) => ({ port: portOf(context) }),
    statements: ['{$service} {listen.s} port {$port}.'],
    direct: ['Which service {listen.s} port {$port}?', 'port {$port}'],
    tags: (slots) => [`service:${slots.service}`, 'networking'],
  },
  {
    attribute: 'service.logs',
    subject: 'service',
    kind: 'note',
    identifier: true,
    slots: () => ({}),
    statements: ['{tail.imp} {$service} {logs}: `kubectl logs -n {$teamSlug} deploy/{$service} -f`'],
    direct: ['kubectl logs {$service}'],
    paraphrase: ['How can I {tail} the {logs} of {$service} live?'],
    tags: (slots) => [`service:${slots.service}`, 'snippets'],
  },
  {
    attribute: 'service.rotate',
    subject: 'service',
    kind: 'note',
    slots: () => ({}),
    statements: [
      'To {rotate.imp} the {$service} {signingKey}: run `keyctl rotate {$service}`, wait for the health check to go green, then revoke the previous one in the console.',
    ],
    direct: ['How do I {rotate} the {$service} {signingKey}?'],
    paraphrase: ['How do I {rotate} the {signingKey} for {$service}?'],
    tags: (slots) => [`service:${slots.service}`, 'runbook'],
  },
  {
    attribute: 'service.restart',
    subject: 'service',
    kind: 'note',
    slots: () => ({}),
    statements: [
      'To {restart} {$service} {safely}: drain it with `lbctl drain {$service}`, roll the pods one at a time, then undrain.',
    ],
    direct: ['How do I {restart} {$service} {safely}?'],
    paraphrase: ['How can I {restart} {$service} {safely}?'],
    tags: (slots) => [`service:${slots.service}`, 'runbook'],
  },
];

/** The slots every template of a subject may use: names, slugs and the team. */
export const subjectSlots = (kind: SubjectKind, subject: Subject): Slots => {
  switch (kind) {
    case 'person': {
      const person = asPerson(subject);
      return { person: person.name, personSlug: person.slug, team: person.team.name, teamSlug: person.team.slug };
    }
    case 'team': {
      const team = asTeam(subject);
      return { team: team.name, teamSlug: team.slug };
    }
    case 'project': {
      const project = asProject(subject);
      return { project: project.name, projectSlug: project.slug, team: project.team.name, teamSlug: project.team.slug };
    }
    case 'service': {
      const service = asService(subject);
      return {
        service: service.name,
        project: service.project.name,
        team: service.team.name,
        teamSlug: service.team.slug,
      };
    }
  }
};

export const subjectsOf = (kind: SubjectKind, world: World): readonly Subject[] => {
  switch (kind) {
    case 'person':
      return world.people;
    case 'team':
      return world.teams;
    case 'project':
      return world.projects;
    case 'service':
      return world.services;
  }
};
