/**
 * Multi-session conversational memory: a person talking to their assistant over several sessions, every turn
 * stored as a memory with its session and turn number. Facts come up in passing (an episode: one exchange, or
 * two in different sessions that only together answer); the last session asks about them. Everyday chatter
 * and later mentions of the same names fill the sessions, and the same kinds of episode recur in other
 * conversations with other details, so a question's words also match turns that do not answer it.
 */
import { phrase, type Wording } from './lexicon.ts';
import { type DraftQuery, dayOf2026, type Grade, instantBetween, type MemoryBook } from './memory-book.ts';
import { type RandomSource, UniqueDraws } from './random-source.ts';

type Slots = Record<string, string>;

interface Plant {
  readonly user: string;
  readonly assistant: string;
  readonly userGrade: Grade | 0;
  readonly assistantGrade: Grade | 0;
}

interface Episode {
  readonly name: string;
  readonly slots: (draw: UniqueDraws, random: RandomSource) => Slots;
  /** One or two exchanges, each in a later session than the one before. */
  readonly plants: readonly Plant[];
  /** A later user turn that names the episode's anchor without answering. */
  readonly echo: string;
  readonly questions: readonly string[];
}

// biome-ignore format: a word list reads better filled than one word a line
const POOLS: Readonly<Record<string, readonly string[]>> = {
  given: [
    'Ana', 'Bruno', 'Carmen', 'Dario', 'Edith', 'Farid', 'Greta', 'Hiro', 'Ilse', 'Jakob', 'Katya', 'Leon', 'Magda',
    'Nils', 'Olga', 'Paulo', 'Rosa', 'Sven', 'Tilde', 'Umar', 'Vera', 'Wim', 'Ximena', 'Yara', 'Zoltan', 'Agnes',
    'Bilal', 'Cora', 'Dev', 'Elif', 'Fern', 'Gus', 'Hedda', 'Ivo', 'Jun', 'Kai', 'Lotte', 'Milo', 'Nina', 'Otto', 'Pia',
    'Quinn', 'Rhea', 'Soren', 'Thea', 'Ugo', 'Vik', 'Wanda', 'Xavi', 'Yusuf', 'Zeno', 'Alma', 'Boris', 'Cyra', 'Dina',
    'Emil', 'Flora', 'Gil', 'Hattie', 'Ike', 'Jonah', 'Kira', 'Lars', 'Mona', 'Ned', 'Oona', 'Pavel', 'Rita', 'Saul',
    'Tova', 'Uli', 'Valentina', 'Wes', 'Yves', 'Zuzana', 'Abel', 'Bettina', 'Cillian', 'Dora', 'Enzo', 'Frida',
    'Gideon', 'Hollis', 'Irma', 'Joaquin', 'Kamala', 'Linus', 'Marisol', 'Niko', 'Orla', 'Pim', 'Rosalind', 'Silas',
    'Tamsin', 'Ulla', 'Vito', 'Willa', 'Yosef', 'Zelda',
  ],
  surname: [
    'Halvorsen', 'Brennan', 'Castellano', 'Dimitriou', 'Eriksen', 'Fujita', 'Gallagher', 'Hoffmann', 'Ibarra',
    'Jovanovic', 'Kaminski', 'Laurent', 'Mbeki', 'Novotny', 'Oyelaran', 'Pellegrini', 'Quintero', 'Rasmussen', 'Szabo',
    'Takahashi', 'Urbano', 'Varga', 'Whitfield', 'Xu', 'Yamada', 'Zielinski', 'Abernathy', 'Bianchi', 'Crowley',
    'Delacroix', 'Esposito', 'Fontaine', 'Grünewald', 'Horvath', 'Ishikawa', 'Jaramillo', 'Kovacs', 'Lindgren',
    'Marchetti', 'Nakagawa',
  ],
  pet: [
    'Biscuit', 'Pepper', 'Mochi', 'Waffles', 'Pickle', 'Nutmeg', 'Clementine', 'Bodhi', 'Ziggy', 'Olive', 'Tofu',
    'Miso', 'Pretzel', 'Noodle', 'Sprout', 'Custard', 'Peanut', 'Luna', 'Gizmo', 'Rocket', 'Dumpling', 'Truffle',
    'Paprika', 'Chai', 'Kiwi', 'Fig', 'Tango', 'Marzipan', 'Pumpkin', 'Scout',
  ],
  restaurant: [
    'Tbilisi Garden', 'Casa Mira', 'The Salted Fig', 'Little Hanoi', 'Osteria Blu', 'Saffron Lane', 'Kimchi House',
    'El Faro', 'The Copper Pot', 'Masala Street', 'Sakura Tei', 'Bistro Lumière', 'Taverna Kyma', 'La Cabaña',
    'The Olive Branch', 'Mezze Garden', 'Nordic Table', 'Café Azul', 'Jollof Kitchen', 'Dim Sum Palace',
    'The Green Lantern', 'Casa Oaxaca',
  ],
  city: [
    'Porto', 'Kraków', 'Valencia', 'Ghent', 'Bologna', 'Ljubljana', 'Edinburgh', 'Seville', 'Tallinn', 'Bruges',
    'Split', 'Salzburg', 'Bergen', 'Lyon', 'Cork', 'Gdańsk', 'Granada', 'Trieste', 'Utrecht', 'Aarhus', 'Bilbao',
    'Plovdiv', 'Riga', 'Nantes',
  ],
  book: [
    'The Left Hand of Darkness', 'Piranesi', 'Klara and the Sun', 'The Remains of the Day', 'Pachinko',
    'Station Eleven', 'The Overstory', 'Beloved', 'Never Let Me Go', 'A Gentleman in Moscow', 'The Name of the Rose',
    'Small Things Like These', 'Hamnet', 'The Master and Margarita',
  ],
  car: [
    'the old Golf', 'the Corolla', 'the Fiat 500', 'the Octavia', 'the Model 3', 'the Civic', 'the Clio', 'the Yaris',
    'the camper van', 'the Volvo estate',
  ],
};

const RELATIVES = ['cousin', 'best friend', 'old flatmate', 'godparent', 'childhood friend', 'oldest friend'];
const MONTH_NAMES = ['April', 'May', 'June', 'July', 'September', 'October'];
const AIRLINES = ['TP', 'KL', 'IB', 'LH', 'U2', 'VY', 'SK', 'EI', 'LO', 'FR'];
// biome-ignore format: a word list reads better filled than one word a line
const BREEDS = [
  'greyhound', 'beagle mix', 'tabby cat', 'border collie', 'lop-eared rabbit', 'black cat', 'terrier mix', 'ginger cat',
  'spaniel', 'Siamese cat',
];
const ALLERGENS = ['peanuts', 'sesame', 'eggs', 'shellfish', 'kiwi fruit', 'mustard', 'celery', 'strawberries'];
// biome-ignore format: a word list reads better filled than one word a line
const REPORTS = [
  'quarterly report', 'grant application', 'annual budget plan', 'customer survey summary', 'safety audit',
  'board presentation',
];
const CUISINES: readonly { readonly cuisine: string; readonly dishes: readonly string[] }[] = [
  { cuisine: 'Georgian', dishes: ['khachapuri', 'khinkali dumplings'] },
  { cuisine: 'Vietnamese', dishes: ['bún chả', 'crispy pancakes'] },
  { cuisine: 'Peruvian', dishes: ['ceviche', 'lomo saltado'] },
  { cuisine: 'Ethiopian', dishes: ['injera platter', 'lentil wot'] },
  { cuisine: 'Lebanese', dishes: ['grilled halloumi', 'lamb kibbeh'] },
  { cuisine: 'Korean', dishes: ['bibimbap', 'fried chicken'] },
  { cuisine: 'Sicilian', dishes: ['arancini', 'swordfish rolls'] },
  { cuisine: 'Sri Lankan', dishes: ['egg hoppers', 'fish curry'] },
  { cuisine: 'Basque', dishes: ['burnt cheesecake', 'grilled turbot'] },
];
const LANGUAGES = ['Portuguese', 'Italian', 'Japanese', 'Greek', 'Arabic', 'Korean', 'Dutch', 'Mandarin', 'Polish'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const APPLIANCES: readonly { readonly appliance: string; readonly part: string }[] = [
  { appliance: 'boiler', part: 'pressure valve' },
  { appliance: 'dishwasher', part: 'drain pump' },
  { appliance: 'washing machine', part: 'door seal' },
  { appliance: 'fridge', part: 'thermostat' },
  { appliance: 'oven', part: 'heating element' },
  { appliance: 'shower', part: 'mixer cartridge' },
];
// biome-ignore format: a word list reads better filled than one word a line
const GIFTS = [
  'a fountain pen', 'a pottery class voucher', 'a vintage record player', 'noise-cancelling headphones',
  'a bonsai tree', 'a signed cookbook', 'a spa weekend voucher', 'a small telescope', 'a hand-knitted scarf',
  'a framed family photo', 'a bread-making course', 'a leather notebook',
];
// biome-ignore format: a word list reads better filled than one word a line
const SHOPS = [
  'the little shop by the station', 'the Saturday market', 'the craft fair', 'the department store in town',
  'an online shop', 'the antiques place on the corner',
];
const PROFESSIONALS = ['dentist', 'physiotherapist', 'eye doctor', 'dermatologist', 'GP'];
const RENOVATIONS = [
  'repainting the kitchen',
  'new bathroom tiles',
  'a garden fence',
  'loft insulation',
  'a new front door',
  'sanding the floors',
];
const REPORT_SETS = ['weekly sales reports', 'churn dashboards', 'inventory sheets', 'support metrics', 'board KPIs'];
const OLD_TOOLS = ['Excel', 'Google Sheets', 'Access'];
const NEW_TOOLS = ['Metabase', 'Looker', 'Power BI', 'Tableau', 'Superset'];
const GARAGES = ['Riverside Motors', 'the Autohaus on Mill Lane', 'Quick Lube', 'the dealer in town', 'Kerb & Co'];
// biome-ignore format: a word list reads better filled than one word a line
const DISHES = [
  'lasagne', 'dal', 'goulash', 'paella', 'banana bread', 'pierogi', 'moussaka', 'apple strudel', 'tagine',
];
// biome-ignore format: a word list reads better filled than one word a line
const TRICKS = [
  'browning the butter first', 'a spoon of miso in the sauce', 'resting the dough overnight',
  'toasting the spices in a dry pan', 'a splash of fish sauce', 'grating frozen butter into the flour',
  'adding the garlic last', 'a pinch of smoked paprika', 'finishing it under the grill',
];

const dateIn = (random: RandomSource): string => `${random.int(1, 28)} ${random.pick(MONTH_NAMES)}`;
const timeIn = (random: RandomSource, from: number, to: number): string =>
  `${random.int(from, to)}:${random.pick(['00', '15', '30', '45'])}`;

const EPISODES: readonly Episode[] = [
  {
    name: 'pet',
    slots: (draw, random) => ({ pet: draw.take('pet'), breed: random.pick(BREEDS) }),
    plants: [
      {
        user: 'Big news: we adopted a {$breed} from the shelter last weekend. The new family member is called {$pet}.',
        assistant: 'Congratulations! The first weeks with a rescue animal are mostly about routine and patience.',
        userGrade: 2,
        assistantGrade: 1,
      },
    ],
    echo: '{$pet} chewed through a charger cable last night.',
    questions: ['What kind of animal is {$pet}?', 'What breed is {$pet}?'],
  },
  {
    name: 'wedding flight',
    slots: (draw, random) => ({
      relative: random.pick(RELATIVES),
      person: draw.take('given'),
      city: draw.take('city'),
      month: random.pick(MONTH_NAMES),
      flight: `${random.pick(AIRLINES)} ${random.int(1000, 8999)}`,
      day: String(random.int(1, 28)),
      time: timeIn(random, 6, 20),
    }),
    plants: [
      {
        user: 'My {$relative} {$person} is getting married in {$city} in {$month}, so I will need to travel.',
        assistant: 'How exciting! Do you want me to keep an eye on travel dates for you?',
        userGrade: 2,
        assistantGrade: 0,
      },
      {
        user: 'Booked it: flight {$flight}, leaving on {$day} {$month} at {$time}.',
        assistant: 'Noted. Online check-in usually opens a day before departure.',
        userGrade: 2,
        assistantGrade: 1,
      },
    ],
    echo: 'Still need to find something to wear for the wedding in {$city}.',
    questions: ["When does my flight to {$person}'s wedding leave?", "What time is my flight for {$person}'s wedding?"],
  },
  {
    name: 'allergy',
    slots: (draw, random) => ({ child: draw.take('given'), allergen: random.pick(ALLERGENS) }),
    plants: [
      {
        user: 'Heads up for meal ideas: {$child} is allergic to {$allergen}.',
        assistant: 'Thanks for telling me. I will keep {$allergen} out of any recipes I suggest.',
        userGrade: 2,
        assistantGrade: 1,
      },
    ],
    echo: '{$child} wants to bake cookies for the school fair tomorrow.',
    questions: ['What is {$child} allergic to?', 'Which food does {$child} have to avoid?'],
  },
  {
    name: 'draft deadline',
    slots: (draw, random) => ({
      boss: draw.take('given'),
      report: random.pick(REPORTS),
      due: dateIn(random),
      draft: dateIn(random),
    }),
    plants: [
      {
        user: 'Work is hectic: the {$report} is due on {$due}, and {$boss} wants a first draft by {$draft}.',
        assistant: 'That sounds tight. Shall I block out some focus time for writing?',
        userGrade: 2,
        assistantGrade: 1,
      },
    ],
    echo: '{$boss} moved our one-to-one to the afternoon again.',
    questions: ['When does {$boss} want the first draft?', 'By when do I owe {$boss} a draft of the {$report}?'],
  },
  {
    name: 'restaurant',
    slots: (draw, random) => {
      const { cuisine, dishes } = random.pick(CUISINES);
      return { friend: draw.take('given'), restaurant: draw.take('restaurant'), cuisine, dish: random.pick(dishes) };
    },
    plants: [
      {
        user: '{$friend} recommended a {$cuisine} place called {$restaurant} near the river.',
        assistant: 'Sounds worth trying! Let me know how it is.',
        userGrade: 2,
        assistantGrade: 0,
      },
      {
        user: 'We finally went to {$restaurant}. The {$dish} was incredible.',
        assistant: 'Glad it lived up to the recommendation!',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: '{$friend} is coming over on Saturday for board games.',
    questions: [
      'What dish did I love at the {$cuisine} place {$friend} recommended?',
      'Which dish was so good at the restaurant {$friend} told me about?',
    ],
  },
  {
    name: 'book club',
    slots: (draw, random) => ({ host: draw.take('given'), book: draw.take('book'), date: dateIn(random) }),
    plants: [
      {
        user: "I'm reading {$book} for {$host}'s book club; we meet on {$date}.",
        assistant: 'Nice choice. Do you want a short summary of the first chapters closer to the date?',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: '{$host} sent round snack ideas for the club, as usual far too many.',
    questions: ["When does {$host}'s book club meet?", "Which book are we reading for {$host}'s book club?"],
  },
  {
    name: 'tutor',
    slots: (draw, random) => ({
      tutor: draw.take('given'),
      language: random.pick(LANGUAGES),
      weekday: random.pick(WEEKDAYS),
      time: timeIn(random, 8, 19),
    }),
    plants: [
      {
        user: 'I started {$language} lessons with a tutor called {$tutor}, every {$weekday} at {$time}.',
        assistant: 'Great! Regular practice matters more than long sessions when learning a language.',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: '{$tutor} gave me so much homework this week.',
    questions: ['When are my lessons with {$tutor}?', 'Which language is {$tutor} teaching me?'],
  },
  {
    name: 'repair',
    slots: (draw, random) => ({ plumber: draw.take('surname'), ...random.pick(APPLIANCES) }),
    plants: [
      {
        user: '{$plumber} the plumber came to look at the {$appliance}; they say it needs a new {$part}.',
        assistant: 'At least it is a known fix. Did they give you a quote?',
        userGrade: 2,
        assistantGrade: 1,
      },
    ],
    echo: 'The {$appliance} is making that noise again.',
    questions: [
      'What did {$plumber} the plumber say the {$appliance} needs?',
      'Which part has to be replaced in the {$appliance}, according to {$plumber}?',
    ],
  },
  {
    name: 'race goal',
    slots: (draw, random) => ({
      city: draw.take('city'),
      goal: random.pick([
        '1 hour 45 minutes',
        '1 hour 50 minutes',
        '2 hours',
        '2 hours 10 minutes',
        '2 hours 20 minutes',
      ]),
    }),
    plants: [
      {
        user: 'I signed up for the {$city} half marathon. My goal is to finish in under {$goal}.',
        assistant: 'That is a great goal. Want a training plan that builds up over the coming weeks?',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: 'Long run done for the {$city} race, my knees are sore.',
    questions: [
      'What finishing time am I aiming for in {$city}?',
      'What is my target time for the {$city} half marathon?',
    ],
  },
  {
    name: 'birthday gift',
    slots: (draw, random) => ({
      person: draw.take('given'),
      age: String(random.pick([30, 40, 50, 60, 65, 70, 80])),
      date: dateIn(random),
      gift: random.pick(GIFTS),
      shop: random.pick(SHOPS),
    }),
    plants: [
      {
        user: "{$person}'s {$age}th birthday is on {$date} and I have no idea what to get.",
        assistant: 'Happy early birthday to {$person}! Tell me what they enjoy and I can suggest something.',
        userGrade: 2,
        assistantGrade: 1,
      },
      {
        user: 'Decided on the present: {$gift} from {$shop}.',
        assistant: 'That sounds thoughtful. Want a reminder to wrap it?',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: "Need wrapping paper before {$person}'s party.",
    questions: [
      "What gift did I decide on for {$person}'s birthday?",
      'What am I giving {$person} for their birthday?',
    ],
  },
  {
    name: 'plant sitter',
    slots: (draw) => ({ neighbour: draw.take('given'), city: draw.take('city') }),
    plants: [
      {
        user: 'We are off to {$city} next week; {$neighbour} from next door will water the plants.',
        assistant: 'Lovely, enjoy {$city}! Do you want a packing list?',
        userGrade: 2,
        assistantGrade: 1,
      },
    ],
    echo: 'Packing for {$city} tonight, the suitcase is already too full.',
    questions: [
      'Who is watering our plants while we are in {$city}?',
      'Who did we ask to look after the plants during the {$city} trip?',
    ],
  },
  {
    name: 'appointment moved',
    slots: (draw, random) => ({
      doctor: draw.take('surname'),
      professional: random.pick(PROFESSIONALS),
      firstDay: random.pick(WEEKDAYS),
      firstTime: timeIn(random, 8, 17),
      day: random.pick(WEEKDAYS),
      time: timeIn(random, 8, 17),
    }),
    plants: [
      {
        user: 'Booked the {$professional} for {$firstDay} at {$firstTime} with Dr {$doctor}.',
        assistant: 'Noted. I can remind you the evening before.',
        userGrade: 1,
        assistantGrade: 0,
      },
      {
        user: "Dr {$doctor}'s office called: the appointment moved to {$day} at {$time}.",
        assistant: 'Updated. The new time is {$day} at {$time}.',
        userGrade: 2,
        assistantGrade: 2,
      },
    ],
    echo: 'Need to find my insurance card before I see Dr {$doctor}.',
    questions: [
      'When is my appointment with Dr {$doctor} now?',
      'What is the latest time for my visit to Dr {$doctor}?',
    ],
  },
  {
    name: 'contractor quote',
    slots: (draw, random) => ({
      contractor: draw.take('surname'),
      renovation: random.pick(RENOVATIONS),
      amount: `€${random.int(6, 48) * 100}`,
    }),
    plants: [
      {
        user: '{$contractor} quoted {$amount} for {$renovation}. Seems fair?',
        assistant: 'That is within the usual range for that kind of job, but a second quote never hurts.',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: '{$contractor} can only start after the holidays.',
    questions: ['How much did {$contractor} quote for {$renovation}?', "What was {$contractor}'s price for the work?"],
  },
  {
    name: 'tool migration',
    slots: (draw, random) => ({
      colleague: draw.take('given'),
      reports: random.pick(REPORT_SETS),
      oldTool: random.pick(OLD_TOOLS),
      newTool: random.pick(NEW_TOOLS),
    }),
    plants: [
      {
        user: 'At work {$colleague} and I are moving the {$reports} from {$oldTool} to {$newTool}.',
        assistant: 'That should save you a lot of copying and pasting. Do you need help planning the move?',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: '{$colleague} is off sick, so the migration is on hold.',
    questions: [
      'Which tool are {$colleague} and I moving the {$reports} to?',
      'Where will the {$reports} live after the migration with {$colleague}?',
    ],
  },
  {
    name: 'car service',
    slots: (draw, random) => ({ car: draw.take('car'), garage: random.pick(GARAGES), date: dateIn(random) }),
    plants: [
      {
        user: 'Heads up: {$car} is booked in for a service at {$garage} on {$date}.',
        assistant: 'Got it. Remember they may keep it for the whole day.',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: 'Must wash {$car} this weekend, it is filthy after the trip.',
    questions: ['When is {$car} going in for its service?', 'Where is {$car} being serviced?'],
  },
  {
    name: 'school meeting',
    slots: (draw, random) => ({
      child: draw.take('given'),
      teacher: draw.take('surname'),
      date: dateIn(random),
      time: timeIn(random, 14, 18),
    }),
    plants: [
      {
        user: "{$child}'s parent-teacher meeting with Ms {$teacher} is on {$date} at {$time}.",
        assistant: 'Noted. Shall I add it to your calendar?',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: '{$child} got a gold star in maths today.',
    questions: ['When do I meet Ms {$teacher} about {$child}?', "What time is {$child}'s parent-teacher meeting?"],
  },
  {
    name: 'family recipe',
    slots: (draw, random) => ({
      relative: random.pick(RELATIVES),
      person: draw.take('given'),
      dish: random.pick(DISHES),
      trick: random.pick(TRICKS),
    }),
    plants: [
      {
        user: 'My {$relative} {$person} finally shared the {$dish} recipe. The secret is {$trick}.',
        assistant: 'What a great secret to have. Want me to save the full recipe somewhere?',
        userGrade: 2,
        assistantGrade: 0,
      },
    ],
    echo: "Trying {$person}'s {$dish} this weekend, fingers crossed.",
    questions: ["What's the secret in {$person}'s {$dish}?", 'What trick did {$person} tell me for the {$dish}?'],
  },
];

/** Everyday exchanges between the facts; many share words with the questions without answering them. */
const CHATTER: readonly (readonly [string, string])[] = [
  ['Morning! Quick one before work.', 'Morning! Go ahead.'],
  ['The weather is awful today, rain all day.', 'Sounds like a good day for indoor plans.'],
  [
    'I need a quick recipe for a weeknight dinner.',
    'How about a one-pan lemon chicken with potatoes? About 40 minutes.',
  ],
  ['Flights are so expensive this year.', 'Booking midweek and a few months ahead usually helps.'],
  ['Remind me to ring my mum on Sunday.', 'Sure, I will remind you on Sunday morning.'],
  ['I slept badly again.', 'Sorry to hear that. A regular bedtime and less screen time in the evening can help.'],
  [
    'What is a good birthday present for a ten-year-old?',
    'Board games, a science kit or art supplies are usually a hit.',
  ],
  ['Work was long today, lots of meetings.', 'That sounds draining. Anything I can take off your plate?'],
  [
    'Can you suggest a podcast for my commute?',
    'If you like history, try a narrative series; episodes are about half an hour.',
  ],
  ['The neighbours are having a party again.', 'Maybe earplugs tonight, and a friendly word tomorrow?'],
  ['I want to start running again.', 'Start with three short runs a week and build up slowly.'],
  ['Thanks, that helped a lot.', 'You are welcome!'],
  ['Any tips for keeping houseplants alive?', 'Most die from overwatering; check the soil before you water.'],
  ['I keep thinking about learning another language.', 'Pick one you can practise with someone; it helps a lot.'],
  ['Our car is making a strange noise.', 'If it squeals when braking, get the brakes checked soon.'],
  ['What wine goes with mushroom risotto?', 'A light red like Pinot Noir or an oaked white both work.'],
  ['Honestly I am scared of the dentist.', 'Lots of people are. Telling the dentist up front really helps.'],
  ['Need to book a table for Friday.', 'How many people, and any cuisine in mind?'],
  ['The kids have a school trip next week.', 'Do they need a packed lunch or a permission slip?'],
  ['I should really read more.', 'Twenty minutes before bed adds up to a lot of books in a year.'],
  ['My back hurts from the desk chair.', 'Try raising the screen to eye level and taking short breaks.'],
  [
    'Is it worth getting a second quote for work on the house?',
    'For anything big, yes; prices vary more than you would think.',
  ],
  ['We are thinking of a weekend away.', 'Somewhere within a couple of hours by train keeps it relaxing.'],
  [
    'What is the difference between baking soda and baking powder?',
    'Baking powder already contains an acid; baking soda needs one in the recipe.',
  ],
  ['The spreadsheet at work crashed again.', 'Saving a copy before big edits might spare you some pain.'],
  ['Can you help me write a thank-you note?', 'Of course. Who is it for, and what are you thanking them for?'],
  ['I keep forgetting appointments.', 'A shared calendar with reminders the day before could help.'],
  [
    'What should I cook for guests with allergies?',
    'Ask them first; simple dishes with few ingredients are easiest to check.',
  ],
  ['Feeling good today, finally some sun.', 'Enjoy it! Maybe a walk at lunch?'],
  ['The boiler at my parents place is ancient.', 'Older boilers are worth servicing every year.'],
  [
    'How long does a half marathon take for a beginner?',
    'Most first-timers finish somewhere between two and three hours.',
  ],
  ['I have a draft to finish tonight.', 'Good luck! Short breaks every hour keep the writing fresh.'],
  [
    'Do you know a good way to store fresh herbs?',
    'Wrap them in a damp towel in the fridge, or keep them in water like flowers.',
  ],
  ['We might get a dog one day.', 'Visiting a shelter first is a good way to see what suits you.'],
];

/** Openers that vary the chatter a little from one conversation to the next, as people's phrasing does. */
const USER_OPENERS = ['', '', '', 'Hey! ', 'Also: ', 'Random thought: ', 'Hi again. ', 'Okay, another thing. '];
const ASSISTANT_OPENERS = ['', '', '', 'Sure. ', 'Right. ', 'Hmm. ', 'Okay! '];

const REPLIES_TO_ECHO = ['Ha, sounds about right.', 'Oh no! Hope it gets better.', 'Good to hear.', 'Fingers crossed!'];

export const CONVERSATION_SESSIONS = 4;
const EPISODES_PER_CONVERSATION = 3;

interface Exchange {
  readonly user: string;
  readonly assistant: string;
  readonly userGrade: Grade | 0;
  readonly assistantGrade: Grade | 0;
  /** Index of the episode the grades belong to, within the conversation. */
  readonly episode?: number;
}

/** `c07-s3`: conversation 7, session 3. Session ids are safe tokens, like the service's own. */
export const sessionId = (conversation: number, session: number): string =>
  `c${String(conversation).padStart(2, '0')}-s${session}`;

/** The conversation and session ordinal of a session id made by `sessionId`. */
export const parseSessionId = (session: string): { conversation: string; ordinal: number } | undefined => {
  const match = /^(c\d+)-s(\d+)$/.exec(session);
  return match ? { conversation: match[1] as string, ordinal: Number(match[2]) } : undefined;
};

/**
 * Writes `count` conversations of `CONVERSATION_SESSIONS` sessions into the book and returns one question
 * per episode, asked in the last session after its stored turns.
 */
export const writeConversations = (book: MemoryBook, random: RandomSource, count: number): DraftQuery[] => {
  const draw = new UniqueDraws(random, POOLS);
  const order = random.shuffle(EPISODES.map((_, index) => index));
  const queries: DraftQuery[] = [];
  const none: Wording = new Map();
  const write = (template: string, slots: Slots): string => phrase(template, slots, 'same', none, random.next);
  let cursor = 0;

  for (let conversation = 1; conversation <= count; conversation += 1) {
    const sessions: Exchange[][] = Array.from({ length: CONVERSATION_SESSIONS }, () => []);
    const chosen: { episode: Episode; slots: Slots }[] = [];
    for (let index = 0; index < EPISODES_PER_CONVERSATION; index += 1) {
      const episode = EPISODES[order[cursor % order.length] as number] as Episode;
      cursor += 1;
      const slots = episode.slots(draw, random);
      chosen.push({ episode, slots });
      // Plants go in sessions before the last, each later than the one before; the echo after the last plant.
      let earliest = 0;
      episode.plants.forEach((plant, plantIndex) => {
        const latest = CONVERSATION_SESSIONS - 2 - (episode.plants.length - 1 - plantIndex);
        const session = random.int(earliest, latest);
        sessions[session]?.push({
          user: write(plant.user, slots),
          assistant: write(plant.assistant, slots),
          userGrade: plant.userGrade,
          assistantGrade: plant.assistantGrade,
          episode: index,
        });
        earliest = session + 1;
      });
      sessions[random.int(earliest, CONVERSATION_SESSIONS - 1)]?.push({
        user: write(episode.echo, slots),
        assistant: random.pick(REPLIES_TO_ECHO),
        userGrade: 0,
        assistantGrade: 0,
      });
    }

    const relevant: { key: number; grade: Grade }[][] = chosen.map(() => []);
    // No chatter twice in one conversation: a deck, dealt from the top.
    const chatter = random.shuffle(CHATTER);
    let start = instantBetween(random, dayOf2026(2, 1), dayOf2026(9, 20));
    let lastSession = '';
    let lastTurn = 0;
    sessions.forEach((planted, sessionIndex) => {
      const exchanges = [...planted];
      const target = random.int(4, 6);
      while (exchanges.length < target) {
        const [user, assistant] = chatter.pop() ?? random.pick(CHATTER);
        exchanges.push({
          user: `${random.pick(USER_OPENERS)}${user}`,
          assistant: `${random.pick(ASSISTANT_OPENERS)}${assistant}`,
          userGrade: 0,
          assistantGrade: 0,
        });
      }
      const session = sessionId(conversation, sessionIndex + 1);
      let turn = 0;
      for (const exchange of random.shuffle(exchanges)) {
        for (const [text, grade, role] of [
          [exchange.user, exchange.userGrade, 'user'],
          [exchange.assistant, exchange.assistantGrade, 'assistant'],
        ] as const) {
          turn += 1;
          const key = book.add({
            kind: 'note',
            text,
            tags: [`role:${role}`],
            session,
            turn,
            createdAt: start + turn * 90_000,
          });
          if (grade > 0 && exchange.episode !== undefined) {
            relevant[exchange.episode]?.push({ key, grade: grade as Grade });
          }
        }
      }
      lastSession = session;
      lastTurn = turn;
      start += random.int(2, 9) * 86_400_000;
    });

    chosen.forEach(({ episode, slots }, index) => {
      queries.push({
        text: write(random.pick(episode.questions), slots),
        category: 'conversational',
        relevant: relevant[index] ?? [],
        session: lastSession,
        turn: lastTurn + 1,
      });
    });
  }
  return queries;
};
