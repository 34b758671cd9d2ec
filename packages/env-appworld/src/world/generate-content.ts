import type { Database } from 'better-sqlite3';
import type { ContactGraph } from './generate-messages.js';
import type { Person } from './person.js';
import { type Draw, daysBefore, worldNow } from './random-helpers.js';
import { insertRow } from './rows.js';
import {
  artistNouns,
  artistWords,
  genres,
  productBrands,
  productCategories,
  songAdjectives,
  songNouns,
} from './vocabulary.js';

export const playlistTitles = [
  'Morning Run',
  'Focus',
  'Road Trip',
  'Chill Evening',
  'Party Mix',
  'Rainy Day',
  'Workout',
  'Dinner Jazz',
] as const;

/** The music catalogue (artists, albums, songs) and each person's library, likes and playlists. */
export function generateMusic(db: Database, draw: Draw, people: readonly Person[]): void {
  const artistNames = new Set<string>();
  while (artistNames.size < 36) artistNames.add(`${draw.pick(artistWords)} ${draw.pick(artistNouns)}`);
  const songTitles = new Set<string>();
  const albumTitles = new Set<string>();
  let artistId = 0;
  let songCount = 0;
  for (const name of artistNames) {
    artistId += 1;
    const genre = draw.pick(genres);
    insertRow(db, 'music_artists', { id: artistId, name, genre, follower_count: draw.int(500, 900_000) });
    for (let album = 0; album < 2; album += 1) {
      const release = daysBefore(worldNow, draw.int(60, 4000)).slice(0, 10);
      let albumTitle = '';
      do albumTitle = `${draw.pick(songNouns)} ${draw.pick(albumWords)}`;
      while (albumTitles.has(albumTitle));
      albumTitles.add(albumTitle);
      const albumId = insertRow(db, 'music_albums', { title: albumTitle, artist_id: artistId, release_date: release });
      for (let track = 0; track < 4; track += 1) {
        let title = '';
        do title = `${draw.pick(songAdjectives)} ${draw.pick(songNouns)}`;
        while (songTitles.has(title));
        songTitles.add(title);
        songCount += 1;
        insertRow(db, 'music_songs', {
          title,
          artist_id: artistId,
          album_id: albumId,
          genre,
          duration_seconds: draw.int(140, 330),
          release_date: release,
          play_count: draw.int(1_000, 5_000_000),
        });
      }
    }
  }
  const songIds = Array.from({ length: songCount }, (_, index) => index + 1);
  for (const person of people) {
    const library = draw.sample(songIds, draw.int(24, 40));
    const likedFromLibrary = draw.sample(library, draw.int(8, 14));
    const likedElsewhere = draw.sample(
      songIds.filter((id) => !library.includes(id)),
      draw.int(10, 20),
    );
    for (const songId of library) {
      insertRow(db, 'music_library_songs', {
        user_id: person.id,
        song_id: songId,
        added_at: daysBefore(worldNow, draw.int(2, 500)),
      });
    }
    for (const songId of [...likedFromLibrary, ...likedElsewhere]) {
      insertRow(db, 'music_liked_songs', {
        user_id: person.id,
        song_id: songId,
        liked_at: daysBefore(worldNow, draw.int(2, 500)),
      });
    }
    for (const title of draw.sample(playlistTitles, draw.int(2, 4))) {
      const created = daysBefore(worldNow, draw.int(30, 400));
      const playlistId = insertRow(db, 'music_playlists', {
        user_id: person.id,
        title,
        is_public: draw.chance(0.5) ? 1 : 0,
        created_at: created,
      });
      for (const songId of draw.sample(songIds, draw.int(6, 12))) {
        insertRow(db, 'music_playlist_songs', { playlist_id: playlistId, song_id: songId, added_at: created });
      }
    }
  }
}

const albumWords = ['Sessions', 'Stories', 'Nights', 'Tapes', 'Chronicles'];

const transferDescriptions = [
  'Dinner',
  'Groceries',
  'Concert tickets',
  'Rent share',
  'Coffee',
  'Gift',
  'Taxi',
  'Movie night',
  'Utilities',
];

/** Wallet balances, money sent between contacts, and payment requests. */
export function generateWallet(db: Database, draw: Draw, people: readonly Person[], graph: ContactGraph): void {
  for (const person of people) insertRow(db, 'wallet_balances', { user_id: person.id, balance: draw.money(400, 2500) });
  for (const person of people) {
    const links = graph.get(person.id) ?? [];
    const transfers = draw.int(10, 16);
    for (let index = 0; index < transfers; index += 1) {
      insertRow(db, 'wallet_transactions', {
        sender_id: person.id,
        receiver_id: draw.pick(links).personId,
        amount: draw.money(5, 150),
        description: draw.pick(transferDescriptions),
        created_at: daysBefore(worldNow, draw.int(1, 180) + draw.int(0, 23) / 24),
      });
    }
    const requests = draw.int(2, 4);
    for (let index = 0; index < requests; index += 1) {
      const status = draw.pick(['pending', 'pending', 'approved', 'denied']);
      const created = daysBefore(worldNow, draw.int(1, 60));
      insertRow(db, 'wallet_payment_requests', {
        requester_id: person.id,
        payer_id: draw.pick(links).personId,
        amount: draw.money(5, 120),
        description: draw.pick(transferDescriptions),
        status,
        created_at: created,
        resolved_at: status === 'pending' ? null : created,
      });
    }
  }
}

const priceRanges: Record<string, [number, number]> = {
  kitchen: [12, 140],
  electronics: [15, 220],
  outdoors: [10, 320],
  books: [8, 45],
  home: [9, 90],
  fitness: [7, 160],
};

/** The product catalogue and each person's cart, wishlist and past orders. */
export function generateShop(db: Database, draw: Draw, people: readonly Person[]): void {
  const productIds: number[] = [];
  const prices = new Map<number, number>();
  for (const [category, names] of Object.entries(productCategories)) {
    for (const name of names) {
      for (const brand of draw.sample(productBrands, 4)) {
        const [low, high] = priceRanges[category] ?? [10, 100];
        const price = draw.money(low, high);
        const id = insertRow(db, 'shop_products', {
          name: `${brand} ${name}`,
          category,
          price,
          rating: Math.round((3 + draw.int(0, 20) / 10) * 10) / 10,
          stock: draw.int(0, 4) === 0 ? 0 : draw.int(3, 80),
          seller: brand,
        });
        productIds.push(id);
        prices.set(id, price);
      }
    }
  }
  const cards = db.prepare('SELECT id, person_id FROM supervisor_payment_cards').all() as Array<{
    id: number;
    person_id: number;
  }>;
  const addresses = db.prepare("SELECT id, person_id FROM supervisor_addresses WHERE name = 'Home'").all() as Array<{
    id: number;
    person_id: number;
  }>;
  for (const person of people) {
    const picks = draw.shuffle(productIds);
    for (const productId of picks.slice(0, draw.int(2, 4))) {
      insertRow(db, 'shop_cart_items', { user_id: person.id, product_id: productId, quantity: draw.int(1, 2) });
    }
    for (const productId of picks.slice(10, 10 + draw.int(4, 8))) {
      insertRow(db, 'shop_wishlist_items', {
        user_id: person.id,
        product_id: productId,
        added_at: daysBefore(worldNow, draw.int(3, 200)),
      });
    }
    const card = draw.pick(cards.filter((item) => item.person_id === person.id));
    const address = addresses.find((item) => item.person_id === person.id);
    const orders = draw.int(4, 8);
    for (let index = 0; index < orders; index += 1) {
      const items = draw.sample(productIds, draw.int(1, 3)).map((productId) => ({
        productId,
        quantity: draw.int(1, 2),
        price: prices.get(productId) ?? 0,
      }));
      const total = Math.round(items.reduce((sum, item) => sum + item.price * item.quantity, 0) * 100) / 100;
      const days = draw.int(2, 330);
      const orderId = insertRow(db, 'shop_orders', {
        user_id: person.id,
        address_id: address?.id ?? 0,
        payment_card_id: card.id,
        total,
        status: days < 6 ? 'shipped' : 'delivered',
        created_at: daysBefore(worldNow, days + draw.int(0, 23) / 24),
      });
      for (const item of items) {
        insertRow(db, 'shop_order_items', {
          order_id: orderId,
          product_id: item.productId,
          quantity: item.quantity,
          unit_price: item.price,
        });
      }
    }
  }
}
