/**
 * The world's tables, one SQLite database for every app (AppWorld keeps one database per app; one
 * file with app-prefixed tables gives the same isolation of names and lets one serialized buffer
 * hold a whole state). Every table has a primary key, so the evaluator can compare records before
 * and after an episode by key.
 *
 * In every app table `user_id` is the account's id in that app; it equals the person's id in
 * `people`, which keeps the generator simple and is never shown as such to the agent.
 */
export const worldSchema = `
CREATE TABLE people (
  id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
  phone_number TEXT NOT NULL UNIQUE, birthday TEXT NOT NULL, city TEXT NOT NULL
);
CREATE TABLE supervisor_addresses (
  id INTEGER PRIMARY KEY, person_id INTEGER NOT NULL, name TEXT NOT NULL, street_address TEXT NOT NULL,
  city TEXT NOT NULL, state TEXT NOT NULL, zip_code TEXT NOT NULL
);
CREATE TABLE supervisor_payment_cards (
  id INTEGER PRIMARY KEY, person_id INTEGER NOT NULL, card_name TEXT NOT NULL, owner_name TEXT NOT NULL,
  card_number TEXT NOT NULL, expiry_year INTEGER NOT NULL, expiry_month INTEGER NOT NULL, cvv TEXT NOT NULL
);
CREATE TABLE supervisor_passwords (
  person_id INTEGER NOT NULL, account_name TEXT NOT NULL, password TEXT NOT NULL,
  PRIMARY KEY (person_id, account_name)
);
CREATE TABLE accounts (
  app TEXT NOT NULL, user_id INTEGER NOT NULL, email TEXT NOT NULL, phone_number TEXT NOT NULL,
  password_hash TEXT NOT NULL, registered_at TEXT NOT NULL, PRIMARY KEY (app, user_id)
);
CREATE TABLE access_tokens (
  token TEXT PRIMARY KEY, app TEXT NOT NULL, user_id INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE password_reset_codes (
  app TEXT NOT NULL, user_id INTEGER NOT NULL, code TEXT NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (app, user_id)
);

CREATE TABLE music_artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, genre TEXT NOT NULL, follower_count INTEGER NOT NULL);
CREATE TABLE music_albums (id INTEGER PRIMARY KEY, title TEXT NOT NULL, artist_id INTEGER NOT NULL, release_date TEXT NOT NULL);
CREATE TABLE music_songs (
  id INTEGER PRIMARY KEY, title TEXT NOT NULL, artist_id INTEGER NOT NULL, album_id INTEGER NOT NULL,
  genre TEXT NOT NULL, duration_seconds INTEGER NOT NULL, release_date TEXT NOT NULL, play_count INTEGER NOT NULL
);
CREATE TABLE music_liked_songs (user_id INTEGER NOT NULL, song_id INTEGER NOT NULL, liked_at TEXT NOT NULL, PRIMARY KEY (user_id, song_id));
CREATE TABLE music_library_songs (user_id INTEGER NOT NULL, song_id INTEGER NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (user_id, song_id));
CREATE TABLE music_playlists (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, title TEXT NOT NULL, is_public INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE music_playlist_songs (playlist_id INTEGER NOT NULL, song_id INTEGER NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (playlist_id, song_id));

CREATE TABLE wallet_balances (user_id INTEGER PRIMARY KEY, balance REAL NOT NULL);
CREATE TABLE wallet_transactions (
  id INTEGER PRIMARY KEY, sender_id INTEGER NOT NULL, receiver_id INTEGER NOT NULL, amount REAL NOT NULL,
  description TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE wallet_payment_requests (
  id INTEGER PRIMARY KEY, requester_id INTEGER NOT NULL, payer_id INTEGER NOT NULL, amount REAL NOT NULL,
  description TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, resolved_at TEXT
);

CREATE TABLE mail_messages (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, folder TEXT NOT NULL, sender TEXT NOT NULL, recipients TEXT NOT NULL,
  subject TEXT NOT NULL, body TEXT NOT NULL, sent_at TEXT NOT NULL, is_read INTEGER NOT NULL, reply_to_id INTEGER
);

CREATE TABLE notes_notes (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, tags TEXT NOT NULL,
  pinned INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);

CREATE TABLE shop_products (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL, rating REAL NOT NULL,
  stock INTEGER NOT NULL, seller TEXT NOT NULL
);
CREATE TABLE shop_cart_items (user_id INTEGER NOT NULL, product_id INTEGER NOT NULL, quantity INTEGER NOT NULL, PRIMARY KEY (user_id, product_id));
CREATE TABLE shop_wishlist_items (user_id INTEGER NOT NULL, product_id INTEGER NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (user_id, product_id));
CREATE TABLE shop_orders (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, address_id INTEGER NOT NULL, payment_card_id INTEGER NOT NULL,
  total REAL NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE shop_order_items (
  order_id INTEGER NOT NULL, product_id INTEGER NOT NULL, quantity INTEGER NOT NULL, unit_price REAL NOT NULL,
  PRIMARY KEY (order_id, product_id)
);
CREATE TABLE shop_reviews (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, product_id INTEGER NOT NULL, rating INTEGER NOT NULL,
  text TEXT NOT NULL, created_at TEXT NOT NULL
);

CREATE TABLE phone_contacts (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
  phone_number TEXT NOT NULL, email TEXT, relationship TEXT NOT NULL, birthday TEXT
);
CREATE TABLE phone_text_messages (
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, sender TEXT NOT NULL, receiver TEXT NOT NULL,
  message TEXT NOT NULL, sent_at TEXT NOT NULL
);

CREATE TABLE files_entries (
  user_id INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (user_id, path)
);
`;

/**
 * Tables the evaluator leaves out of "nothing else changed": sessions and one-time codes are
 * bookkeeping of the APIs, not the person's data (AppWorld likewise ignores its token tables).
 */
export const bookkeepingTables: readonly string[] = ['access_tokens', 'password_reset_codes', 'changed_tables'];

/** The sender shown on messages the apps send themselves (password reset codes). */
export const systemSender = (app: string): string => `no-reply@${app}.example`;
/** The short number that sends password reset codes by text message. */
export const systemTextNumber = '+1 800 555 0100';
