import BetterSqlite3, { type Database } from 'better-sqlite3';
import { generateMusic, generateShop, generateWallet } from './generate-content.js';
import { generateFiles, generateMail, generateNotes, generatePhone } from './generate-messages.js';
import type { Person } from './person.js';
import { Draw, daysBefore, passwordHash, worldNow } from './random-helpers.js';
import { insertRow } from './rows.js';
import { worldSchema } from './schema.js';
import { cities, firstNames, lastNames, streets } from './vocabulary.js';

/** The apps a person has an account in (besides `supervisor` and `api_docs`, which need none). */
export const accountApps = ['music', 'wallet', 'mail', 'notes', 'shop', 'phone', 'files'] as const;
export type AccountApp = (typeof accountApps)[number];

/** How many people the world holds. */
export const peopleCount = 36;

const cardNames = ['Everyday Visa', 'Travel Rewards', 'Cashback Plus', 'Grocery Card'] as const;

function generatePeople(db: Database, draw: Draw): Person[] {
  const lasts = draw.shuffle(lastNames);
  const phones = new Set<string>();
  const people: Person[] = [];
  for (let index = 0; index < peopleCount; index += 1) {
    const firstName = firstNames[index % firstNames.length] ?? 'Alex';
    const lastName = lasts[index % lasts.length] ?? 'Doe';
    let phoneNumber = '';
    do phoneNumber = `+1 ${draw.int(201, 989)} 555 ${draw.digits(4)}`;
    while (phones.has(phoneNumber));
    phones.add(phoneNumber);
    const [city] = draw.pick(cities);
    const person: Person = {
      id: index + 1,
      firstName,
      lastName,
      email: `${firstName}.${lastName}@mail.example`.toLowerCase(),
      phoneNumber,
    };
    insertRow(db, 'people', {
      id: person.id,
      first_name: firstName,
      last_name: lastName,
      email: person.email,
      phone_number: phoneNumber,
      birthday: `${draw.int(1960, 2002)}-${String(draw.int(1, 12)).padStart(2, '0')}-${String(draw.int(1, 28)).padStart(2, '0')}`,
      city,
    });
    people.push(person);
  }
  return people;
}

function generateSupervisorData(db: Database, draw: Draw, people: readonly Person[]): void {
  for (const person of people) {
    const [city, state] = draw.pick(cities);
    insertRow(db, 'supervisor_addresses', {
      person_id: person.id,
      name: 'Home',
      street_address: `${draw.int(10, 999)} ${draw.pick(streets)}`,
      city,
      state,
      zip_code: draw.digits(5),
    });
    if (draw.chance(0.5)) {
      insertRow(db, 'supervisor_addresses', {
        person_id: person.id,
        name: 'Work',
        street_address: `${draw.int(1000, 4999)} ${draw.pick(streets)}, Suite ${draw.int(100, 900)}`,
        city,
        state,
        zip_code: draw.digits(5),
      });
    }
    for (const cardName of draw.sample(cardNames, draw.int(2, 3))) {
      insertRow(db, 'supervisor_payment_cards', {
        person_id: person.id,
        card_name: cardName,
        owner_name: `${person.firstName} ${person.lastName}`,
        card_number: `4${draw.digits(15)}`,
        expiry_year: draw.int(2025, 2029),
        expiry_month: draw.int(1, 12),
        cvv: draw.digits(3),
      });
    }
    for (const app of accountApps) {
      const password = draw.password();
      insertRow(db, 'supervisor_passwords', { person_id: person.id, account_name: app, password });
      insertRow(db, 'accounts', {
        app,
        user_id: person.id,
        email: person.email,
        phone_number: person.phoneNumber,
        password_hash: passwordHash(app, person.id, password),
        registered_at: daysBefore(worldNow, draw.int(400, 1500)),
      });
    }
  }
}

/**
 * Builds the base world in a fresh in-memory database, deterministically from `seed`: people,
 * their profiles, accounts in every app, and each app's data.
 */
export function generateWorld(seed: number): Database {
  const db = new BetterSqlite3(':memory:');
  db.exec(worldSchema);
  const draw = new Draw(seed);
  db.transaction(() => {
    const people = generatePeople(db, draw);
    generateSupervisorData(db, draw, people);
    const contacts = generatePhone(db, draw, people);
    generateMusic(db, draw, people);
    generateWallet(db, draw, people, contacts);
    generateMail(db, draw, people, contacts);
    generateNotes(db, draw, people);
    generateShop(db, draw, people);
    generateFiles(db, draw, people);
  })();
  return db;
}
