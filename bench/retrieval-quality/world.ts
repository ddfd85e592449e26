/**
 * The invented organisation the work memories talk about: people with roles, cities and time zones, teams,
 * projects and services. Every name here is made up for this set.
 */
import type { RandomSource } from './random-source.ts';

// biome-ignore format: a word list reads better filled than one word a line
export const FIRST_NAMES = [
  'Maria', 'Jonas', 'Priya', 'Tomás', 'Aisha', 'Kenji', 'Ingrid', 'Mateo', 'Fatima', 'Liam', 'Chloé', 'Oluwaseun',
  'Hana', 'Diego', 'Sofia', 'Rahul', 'Elena', 'Marcus', 'Yuki', 'Amara', 'Nikolai', 'Leila', 'Samuel', 'Mei',
  'Pedro', 'Zara', 'Henrik', 'Noor', 'Lucas', 'Ayesha', 'Tobias', 'Camila', 'Dmitri', 'Grace', 'Ravi', 'Ines',
  'Omar', 'Freya', 'Kwame', 'Lucia', 'Arjun', 'Beatriz', 'Felix', 'Nadia', 'Emeka', 'Sara', 'Victor', 'Anika',
  'Hugo', 'Leena', 'Kofi', 'Julia', 'Stefan', 'Mina', 'Andrés', 'Clara', 'Tariq', 'Ewa', 'Rafael', 'Selin',
] as const;

// biome-ignore format: a word list reads better filled than one word a line
export const LAST_NAMES = [
  'Lopez', 'Weber', 'Natarajan', 'Rivera', 'Okafor', 'Tanaka', 'Lindqvist', 'Fernandes', 'Haddad', 'Murphy',
  'Dubois', 'Adeyemi', 'Sato', 'Morales', 'Rossi', 'Sharma', 'Petrova', 'Johnson', 'Nakamura', 'Mensah', 'Volkov',
  'Karimi', 'Cohen', 'Chen', 'Almeida', 'Hussain', 'Nilsen', 'Aziz', 'Martin', 'Kapoor', 'Schmidt', 'Ortega',
  'Ivanov', 'Walsh', 'Iyer', 'Costa', 'Farouk', 'Hansen', 'Boateng', 'Romano', 'Mehta', 'Silva', 'Bauer',
  'Popescu', 'Eze', 'Kowalski', 'Novak', 'Gupta', 'Moreau', 'Yilmaz', 'Asante', 'Keller', 'Kim', 'Duarte',
  'Rahman', 'Fischer', 'Park', 'Jansen', 'Sousa', 'Demir',
] as const;

export interface City {
  readonly name: string;
  readonly zone: string;
}

export const CITIES: readonly City[] = [
  { name: 'Berlin', zone: 'Europe/Berlin' },
  { name: 'Lisbon', zone: 'Europe/Lisbon' },
  { name: 'Toronto', zone: 'America/Toronto' },
  { name: 'Austin', zone: 'America/Chicago' },
  { name: 'Bangalore', zone: 'Asia/Kolkata' },
  { name: 'Nairobi', zone: 'Africa/Nairobi' },
  { name: 'Melbourne', zone: 'Australia/Melbourne' },
  { name: 'São Paulo', zone: 'America/Sao_Paulo' },
  { name: 'Warsaw', zone: 'Europe/Warsaw' },
  { name: 'Seoul', zone: 'Asia/Seoul' },
  { name: 'Dublin', zone: 'Europe/Dublin' },
  { name: 'Denver', zone: 'America/Denver' },
  { name: 'Singapore', zone: 'Asia/Singapore' },
  { name: 'Madrid', zone: 'Europe/Madrid' },
  { name: 'Lagos', zone: 'Africa/Lagos' },
  { name: 'Vancouver', zone: 'America/Vancouver' },
];

// biome-ignore format: a word list reads better filled than one word a line
export const ROLES = [
  'backend engineer', 'frontend engineer', 'data engineer', 'product manager', 'engineering manager',
  'site reliability engineer', 'product designer', 'QA engineer', 'security engineer', 'technical writer',
  'data scientist', 'mobile engineer', 'solutions architect', 'support lead',
] as const;

// biome-ignore format: a word list reads better filled than one word a line
const TEAM_NAMES = [
  'payments', 'search', 'mobile', 'platform', 'data', 'identity', 'growth', 'notifications', 'infrastructure',
  'security', 'design systems', 'support tooling',
] as const;

const CHANNEL_SUFFIXES = ['eng', 'crew', 'dev', 'team', 'squad', 'hq'] as const;

// biome-ignore format: a word list reads better filled than one word a line
export const PROJECT_NAMES = [
  'Falcon', 'Heron', 'Juniper', 'Basalt', 'Kestrel', 'Larch', 'Obsidian', 'Wren', 'Cedar', 'Quartz', 'Osprey',
  'Alder', 'Garnet', 'Plover', 'Hazel', 'Jasper', 'Marten', 'Sorrel', 'Tern', 'Willow', 'Onyx', 'Finch', 'Birch',
  'Cobalt', 'Lynx', 'Maple', 'Opal', 'Rook', 'Sable', 'Teal', 'Umber', 'Vireo', 'Yarrow', 'Zircon', 'Aspen',
  'Bramble', 'Condor', 'Dunlin', 'Egret', 'Fennel', 'Gannet', 'Hemlock', 'Ibis', 'Jackdaw', 'Kite', 'Lichen',
  'Merlin', 'Nettle', 'Oriole', 'Pippin', 'Quail', 'Rowan', 'Saffron', 'Thistle', 'Upland', 'Vetch', 'Warbler',
  'Yew', 'Zephyr', 'Agate', 'Beryl', 'Coral', 'Dolomite', 'Flint', 'Granite', 'Halite', 'Iolite', 'Jet',
  'Kyanite', 'Lapis', 'Marble', 'Nickel', 'Ochre', 'Pumice', 'Ruby', 'Slate', 'Topaz', 'Umbra', 'Verdigris',
] as const;

// biome-ignore format: a word list reads better filled than one word a line
const SERVICE_FIRST = [
  'ledger', 'refund', 'search', 'push', 'auth', 'session', 'invoice', 'rate', 'geo', 'event', 'image', 'report',
  'quota', 'token', 'audit', 'price', 'cart', 'sms', 'email', 'catalog', 'fraud', 'address', 'webhook', 'metrics',
  'schema', 'config', 'job', 'pdf', 'currency', 'consent', 'payout', 'tax', 'media', 'profile', 'ranking', 'export',
] as const;

// biome-ignore format: a word list reads better filled than one word a line
const SERVICE_SECOND = [
  'api', 'reconciler', 'indexer', 'gateway', 'broker', 'store', 'renderer', 'limiter', 'resolver', 'router',
  'resizer', 'builder', 'keeper', 'minter', 'sink', 'engine', 'relay', 'dispatcher', 'sync', 'scorer', 'validator',
  'collector', 'registry', 'scheduler', 'converter', 'manager', 'worker', 'proxy',
] as const;

export interface Team {
  readonly name: string;
  readonly slug: string;
  readonly channel: string;
  lead?: Person;
}

export interface Person {
  readonly name: string;
  readonly first: string;
  readonly slug: string;
  readonly team: Team;
  readonly city: City;
  readonly role: string;
}

export interface Project {
  readonly name: string;
  readonly slug: string;
  readonly team: Team;
  readonly lead: Person;
}

export interface Service {
  readonly name: string;
  readonly team: Team;
  readonly project: Project;
}

export interface World {
  readonly teams: Team[];
  readonly people: Person[];
  readonly projects: Project[];
  readonly services: Service[];
}

export const slugOf = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * Hands out people, projects and services that have not been used yet, so the background can grow the
 * organisation without repeating a name the labelled part uses.
 */
export class WorldBuilder {
  readonly #unusedNames: string[];
  readonly #unusedProjects: string[];
  readonly #unusedServices: string[];
  #projectRound = 0;
  readonly world: World = { teams: [], people: [], projects: [], services: [] };

  readonly #random: RandomSource;

  constructor(random: RandomSource) {
    this.#random = random;
    this.#unusedNames = random.shuffle(FIRST_NAMES.flatMap((first) => LAST_NAMES.map((last) => `${first} ${last}`)));
    this.#unusedProjects = random.shuffle(PROJECT_NAMES);
    this.#unusedServices = random.shuffle(SERVICE_FIRST.flatMap((first) => SERVICE_SECOND.map((s) => `${first}-${s}`)));
    const suffixes = random.shuffle([...CHANNEL_SUFFIXES, ...CHANNEL_SUFFIXES]);
    TEAM_NAMES.forEach((name, index) => {
      const slug = slugOf(name);
      this.world.teams.push({ name, slug, channel: `${slug}-${suffixes[index] ?? 'eng'}` });
    });
  }

  addPerson(team: Team = this.#random.pick(this.world.teams), role?: string): Person {
    const name = this.#unusedNames.pop();
    if (name === undefined) throw new Error('No unused names left');
    const [first = name] = name.split(' ');
    const person: Person = {
      name,
      first,
      slug: slugOf(name),
      team,
      city: this.#random.pick(CITIES),
      role: role ?? this.#random.pick(ROLES),
    };
    this.world.people.push(person);
    return person;
  }

  addProject(team: Team = this.#random.pick(this.world.teams)): Project {
    if (this.#unusedProjects.length === 0) {
      this.#projectRound += 1;
      this.#unusedProjects.push(
        ...this.#random.shuffle(PROJECT_NAMES.map((name) => `${name} ${this.#projectRound + 1}`)),
      );
    }
    const name = this.#unusedProjects.pop() as string;
    const members = this.world.people.filter((person) => person.team === team);
    const lead = members.length > 0 ? this.#random.pick(members) : this.addPerson(team);
    const project: Project = { name, slug: slugOf(name), team, lead };
    this.world.projects.push(project);
    return project;
  }

  addService(project: Project = this.#random.pick(this.world.projects)): Service {
    const name = this.#unusedServices.pop();
    if (name === undefined) throw new Error('No unused service names left');
    const service: Service = { name, team: project.team, project };
    this.world.services.push(service);
    return service;
  }

  /** The labelled core: every team with a lead and a few members, its projects and their services. */
  buildCore(sizes: { people: number; projects: number; services: number }): World {
    for (const team of this.world.teams) {
      team.lead = this.addPerson(team, 'engineering manager');
    }
    while (this.world.people.length < sizes.people) this.addPerson();
    for (let index = 0; index < sizes.projects; index += 1) {
      this.addProject(this.world.teams[index % this.world.teams.length]);
    }
    for (let index = 0; index < sizes.services; index += 1) {
      this.addService(this.world.projects[index % this.world.projects.length]);
    }
    return this.world;
  }
}

/** The person someone reports to: their team's lead, or for a lead, the lead of the platform team (or another). */
export const managerOf = (person: Person, world: World): Person | undefined => {
  const lead = person.team.lead;
  if (lead && lead !== person) return lead;
  const other = world.teams.find((team) => team.lead && team.lead !== person);
  return other?.lead;
};
