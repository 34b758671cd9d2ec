/** Word lists the world generator draws from. All invented for this project. */

export const firstNames = [
  'Amara', 'Bastian', 'Celia', 'Dorian', 'Elena', 'Felix', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Lucas',
  'Mila', 'Nils', 'Olga', 'Pavel', 'Quinn', 'Rosa', 'Soren', 'Talia', 'Umar', 'Vera', 'Wendell', 'Xenia',
  'Yusuf', 'Zora', 'Anton', 'Bianca', 'Cyrus', 'Dalia', 'Emil', 'Freya', 'Gideon', 'Hana', 'Ivo', 'Juno',
] as const;

export const lastNames = [
  'Abbott', 'Brennan', 'Castillo', 'Delgado', 'Eriksen', 'Fontaine', 'Galloway', 'Hartmann', 'Iverson', 'Jansen',
  'Kowalski', 'Lindqvist', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quintero', 'Rasmussen', 'Silva', 'Tanaka',
  'Ueda', 'Valdez', 'Whitaker', 'Xu', 'Yilmaz', 'Zimmerman', 'Arden', 'Bishop', 'Carrow', 'Dunmore', 'Ellery',
  'Farrow', 'Grisham', 'Holloway', 'Ingram', 'Jessup',
] as const;

export const cities = [
  ['Maplewood', 'OR'], ['Riverton', 'WA'], ['Cedar Falls', 'CO'], ['Lakeshore', 'MI'], ['Brookhaven', 'NY'],
  ['Sunnyvale Heights', 'CA'], ['Pine Bluff Springs', 'TX'], ['Harborview', 'ME'],
] as const;

export const streets = [
  'Oak Lane', 'Birch Avenue', 'Harbor Street', 'Willow Court', 'Summit Road', 'Meadow Drive', 'Granite Way',
  'Orchard Boulevard', 'Lantern Street', 'Juniper Place',
] as const;

export const genres = ['pop', 'rock', 'jazz', 'hip-hop', 'classical', 'electronic', 'folk', 'country'] as const;

export const artistWords = [
  'Velvet', 'Neon', 'Paper', 'Silver', 'Hollow', 'Crimson', 'Lunar', 'Atlas', 'Copper', 'Echo', 'Golden',
  'Wild', 'Quiet', 'Electric', 'Northern', 'Glass', 'Rusty', 'Midnight', 'Ocean',
] as const;

export const artistNouns = [
  'Foxes', 'Harbor', 'Tides', 'Engines', 'Lanterns', 'Wolves', 'Static', 'Orchard', 'Satellites', 'Kites',
  'Rivers', 'Comets', 'Pilots', 'Gardens', 'Parade', 'Choir',
] as const;

export const songAdjectives = [
  'Broken', 'Endless', 'Summer', 'Lonely', 'Bright', 'Falling', 'Hidden', 'Restless', 'Golden', 'Distant',
  'Burning', 'Silent', 'Shallow', 'Painted', 'Faded', 'Wandering', 'Sudden', 'Gentle', 'Frozen', 'Velvet',
] as const;

export const songNouns = [
  'Morning', 'Highway', 'Letters', 'Skyline', 'Heartbeat', 'Shadows', 'Harbor', 'Promises', 'Rain', 'Horizon',
  'Echoes', 'Streetlights', 'Garden', 'Mirrors', 'Thunder', 'River', 'Window', 'Dreams', 'Satellite', 'Fire',
] as const;

export const productCategories = {
  kitchen: ['Chef Knife', 'Cast Iron Skillet', 'Coffee Grinder', 'Tea Kettle', 'Mixing Bowl Set', 'Cutting Board'],
  electronics: ['Wireless Earbuds', 'USB-C Charger', 'Bluetooth Speaker', 'Smart Plug', 'Webcam', 'Power Bank'],
  outdoors: ['Camping Tent', 'Hiking Backpack', 'Water Bottle', 'Headlamp', 'Sleeping Bag', 'Trekking Poles'],
  books: ['Mystery Novel', 'Cookbook', 'Travel Guide', 'Poetry Collection', 'Science Atlas', 'Graphic Novel'],
  home: ['Desk Lamp', 'Throw Blanket', 'Wall Clock', 'Plant Pot', 'Scented Candle', 'Storage Basket'],
  fitness: ['Yoga Mat', 'Resistance Bands', 'Jump Rope', 'Foam Roller', 'Dumbbell Pair', 'Fitness Tracker'],
} as const;

export const productBrands = ['Nordlund', 'Acorn & Co', 'Brightpath', 'Kestrel', 'Lumio', 'Tidewater', 'Orbis'];

export const organizations = [
  { name: 'Brightpath Bank', domain: 'brightpath-bank.example' },
  { name: 'City Library', domain: 'citylibrary.example' },
  { name: 'Trailhead Outfitters', domain: 'trailhead.example' },
  { name: 'Daily Digest', domain: 'dailydigest.example' },
  { name: 'Harbor Dental', domain: 'harbordental.example' },
  { name: 'Fresh Basket Grocery', domain: 'freshbasket.example' },
] as const;

export const emailTopics = [
  ['Dinner on Friday?', 'Are you free for dinner on Friday? I found a new place downtown.'],
  ['Photos from the trip', 'Here are the photos from our trip. The one at the lake is my favourite.'],
  ['Book club', 'The next book club meeting moves to Thursday at 7pm.'],
  ['Quick question', 'Do you still have the charger I lent you last month?'],
  ['Weekend plans', 'We are thinking about a hike on Saturday morning. Want to join?'],
  ['Happy birthday!', 'Happy birthday! Hope you have a wonderful day.'],
  ['Project update', 'The draft is ready for review. Let me know what you think by Monday.'],
  ['Recipe', 'Here is the soup recipe you asked about: lentils, carrots, cumin and lemon.'],
] as const;

export const textSnippets = [
  'Running 10 minutes late, sorry!',
  'Did you see the game last night?',
  'Can you pick up milk on the way home?',
  'Thanks for today, it was fun.',
  'Call me when you get a chance.',
  'Are we still on for lunch tomorrow?',
  'I left the keys under the mat.',
  'Great news about the new job!',
] as const;

export const noteTemplates = [
  ['Packing list', 'passport\ncharger\nsunscreen\nswimsuit', ['travel']],
  ['Recipe: lemon pasta', 'spaghetti\nlemon zest\nparmesan\nblack pepper', ['cooking']],
  ['Meeting notes', 'Discussed the budget. Follow up with finance next week.', ['work']],
  ['Book ideas', 'A detective who solves crimes through old maps.', ['writing']],
  ['Gift ideas', 'scarf for mom\nheadphones for brother', ['personal']],
  ['Workout plan', 'Mon: run 5k\nWed: yoga\nFri: weights', ['fitness']],
  ['Garden plan', 'tomatoes by the fence\nbasil near the door', ['home']],
  ['Travel ideas', 'Lisbon in spring\nKyoto in autumn', ['travel']],
  ['Movie list', 'The Long Harbor\nPaper Moons\nNight Train', ['personal']],
  ['Work todo', 'update slides\nemail the vendor\nbook the meeting room', ['work']],
  ['Recipe: bean chili', 'black beans\ntomatoes\nchili powder\nonion', ['cooking']],
  ['Reading list', 'The Quiet Atlas\nRivers of Glass', ['reading']],
] as const;

export const fileTemplates = [
  ['/documents', 'resume', 'pdf'], ['/documents', 'tax-return-2023', 'pdf'], ['/documents', 'lease', 'pdf'],
  ['/documents', 'budget', 'xlsx'], ['/documents', 'cover-letter', 'docx'], ['/photos', 'beach', 'jpg'],
  ['/photos', 'birthday-party', 'jpg'], ['/photos', 'mountain-view', 'png'], ['/photos', 'graduation', 'jpg'],
  ['/downloads', 'installer', 'zip'], ['/downloads', 'concert-ticket', 'pdf'], ['/downloads', 'boarding-pass', 'pdf'],
  ['/downloads', 'invoice-1042', 'pdf'], ['/downloads', 'wallpaper', 'png'], ['/downloads', 'podcast-episode', 'mp3'],
  ['/downloads', 'manual', 'pdf'], ['/downloads', 'notes-backup', 'txt'], ['/downloads', 'photo-export', 'zip'],
] as const;

/** Relationships in phone contacts; the first five appear at most once per person. */
export const uniqueRelationships = ['mother', 'father', 'partner', 'roommate', 'manager'] as const;
export const repeatedRelationships = ['friend', 'coworker', 'sibling', 'cousin', 'neighbor'] as const;
