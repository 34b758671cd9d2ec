import type { PlanNode } from '@harness-s/core';
import type { Database } from 'better-sqlite3';
import { type CheckContext, numberOf } from '../evaluation/check-context.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { act, decide, fetchPages, finish, giveUp, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { choose, literal, person, pickPeople } from './world-facts.js';

/** Code that places an order for `ids` with the named card and the home address, from the supervisor app. */
const orderCode = (cardName: string): string =>
  [
    `var card = apis.supervisor.show_payment_cards().find((item) => item.card_name === ${literal(cardName)});`,
    "var home = apis.supervisor.show_addresses().find((item) => item.name === 'Home');",
    'var order = apis.shop.place_order({ access_token: shopToken, payment_card_id: card.payment_card_id, address_id: home.address_id, product_ids: ids });',
    'print(order);',
  ].join('\n');

/** The order must hold exactly `productIds` (one of each, or the cart's quantities), paid and shipped as asked. */
function checkOrder(context: CheckContext, userId: number, productIds: number[], cardName: string): void {
  const orders = context
    .changes('shop_orders')
    .filter((change) => change.kind === 'added' && change.after?.['user_id'] === userId);
  const order = orders[0]?.after ?? null;
  const orderId = numberOf(order, 'id');
  const card = oneRow<{ id: number }>(
    context.before,
    'SELECT id FROM supervisor_payment_cards WHERE person_id = ? AND card_name = ?',
    userId,
    cardName,
  );
  const home = oneRow<{ id: number }>(
    context.before,
    "SELECT id FROM supervisor_addresses WHERE person_id = ? AND name = 'Home'",
    userId,
  );
  context.require('one-order', orders.length === 1, `${orders.length} new order(s)`);
  context.require(
    'paid-and-shipped-as-asked',
    order?.['payment_card_id'] === card?.id && order?.['address_id'] === home?.id,
    `card ${order?.['payment_card_id']} (want ${card?.id}), address ${order?.['address_id']} (want ${home?.id})`,
  );
  const items = allRows<{ product_id: number }>(
    context.after,
    'SELECT product_id FROM shop_order_items WHERE order_id = ? ORDER BY product_id',
    orderId,
  ).map((row) => row.product_id);
  const wanted = [...productIds].sort((a, b) => a - b);
  context.require(
    'ordered-products',
    JSON.stringify(items) === JSON.stringify(wanted),
    `expected ${wanted.join(',')}, ordered ${items.join(',')}`,
  );
  context.allow('shop_orders', (change) => orders.includes(change));
  context.allow(
    'shop_order_items',
    (change) => change.kind === 'added' && numberOf(change.after, 'order_id') === orderId,
  );
  context.allow(
    'shop_products',
    (change) => change.kind === 'updated' && wanted.includes(numberOf(change.after, 'id')),
  );
  context.allow('shop_cart_items', (change) => {
    const row = change.after ?? change.before;
    return change.kind !== 'updated' && row?.['user_id'] === userId && wanted.includes(numberOf(row, 'product_id'));
  });
}

const cardOf = (db: Database, id: number, salt: string): string =>
  choose(
    allRows<{ card_name: string }>(
      db,
      'SELECT card_name FROM supervisor_payment_cards WHERE person_id = ? ORDER BY id',
      id,
    ).map((row) => row.card_name),
    salt,
  );

/** The payment step: the supervisor app's card and address, or a guessed card id that fails. */
function paymentStep(cardName: string): PlanNode {
  return decide(
    'ask-supervisor',
    [act(orderCode(cardName), 'I take the card and the address from the supervisor app and place the order.')],
    [
      act(
        'var order = apis.shop.place_order({ access_token: shopToken, payment_card_id: 1, address_id: 1, product_ids: ids });\nprint(order);',
        'I place the order with my card.',
      ),
      decide(
        'recover-from-error',
        [act(orderCode(cardName), 'The ids were wrong; the supervisor app has my cards and addresses.')],
        [giveUp()],
      ),
    ],
  );
}

/** Ordering the wishlist's cheap products. */
const orderWishlistUnder: Scenario = {
  name: 'order-wishlist-under',
  family: 'shop',
  split: 'test',
  difficulty: 3,
  tags: ['pagination', 'multi-app', 'write'],
  variants: (db) =>
    pickPeople(db, 'order-wishlist-under', 3, (id) => id !== 1).map((id, index) => {
      const { email } = person(db, id);
      const limit = [60, 45, 80][index] ?? 60;
      const cardName = cardOf(db, id, `order-wishlist-under:${id}`);
      const cheap = (world: Database) =>
        allRows<{ product_id: number }>(
          world,
          'SELECT w.product_id FROM shop_wishlist_items w JOIN shop_products p ON p.id = w.product_id WHERE w.user_id = ? AND p.price < ?',
          id,
          limit,
        ).map((row) => row.product_id);
      return {
        supervisorId: id,
        instruction: `Order every product on my shop wishlist that costs less than $${limit}, one of each, paid with my "${cardName}" card and shipped to my home address.`,
        setup: (world) => {
          // Two cheap wishlist items added long ago (past the first page), and everything in stock.
          const extra = allRows<{ id: number }>(
            world,
            `SELECT id FROM shop_products WHERE price < ? AND id NOT IN (SELECT product_id FROM shop_wishlist_items WHERE user_id = ?)
             AND id NOT IN (SELECT product_id FROM shop_cart_items WHERE user_id = ?) ORDER BY id LIMIT 2`,
            limit,
            id,
            id,
          );
          for (const product of extra)
            insertRow(world, 'shop_wishlist_items', {
              user_id: id,
              product_id: product.id,
              added_at: '2022-11-20T10:00:00',
            });
          for (const productId of cheap(world))
            run(world, 'UPDATE shop_products SET stock = MAX(stock, 10) WHERE id = ?', productId);
        },
        plan: [
          ...login('shop', email, 'shopToken'),
          withDoc(
            'shop',
            'show_wishlist',
            `var wishlist = apis.shop.show_wishlist({ access_token: shopToken, max_price: ${limit} });`,
            [
              fetchPages(
                [['wishlist', pagedCall('shop', 'show_wishlist', 'access_token: shopToken')]],
                `var ids = wishlist.filter((item) => item.price < ${limit}).map((item) => item.product_id);\nprint(ids);`,
              ),
            ],
          ),
          act(
            'for (var productId of ids) apis.shop.add_product_to_cart({ access_token: shopToken, product_id: productId, quantity: 1 });\nprint(apis.shop.show_cart({ access_token: shopToken }));',
            'I put them in the cart.',
          ),
          paymentStep(cardName),
          finish(),
        ],
        check: (context) => checkOrder(context, id, cheap(context.before), cardName),
      };
    }),
};

/** Ordering what is both in the cart and on the wishlist: a train-split intersection case. */
const orderCartAndWishlist: Scenario = {
  name: 'order-cart-and-wishlist',
  family: 'shop',
  split: 'train',
  difficulty: 2,
  tags: ['intersection', 'pagination'],
  variants: (db) =>
    pickPeople(db, 'order-cart-and-wishlist', 3, (id) => id !== 1).map((id) => {
      const { email } = person(db, id);
      const cardName = cardOf(db, id, `order-cart-and-wishlist:${id}`);
      const both = (world: Database) =>
        allRows<{ product_id: number }>(
          world,
          'SELECT c.product_id FROM shop_cart_items c JOIN shop_wishlist_items w ON w.product_id = c.product_id AND w.user_id = c.user_id WHERE c.user_id = ?',
          id,
        ).map((row) => row.product_id);
      return {
        supervisorId: id,
        instruction: `Order the products that are both in my shop cart and on my wishlist (in the quantities in my cart), paid with my "${cardName}" card and shipped to my home address.`,
        setup: (world) => {
          // Three products wished for long ago (past the first page); two of them are in the cart too, in stock.
          const added = allRows<{ id: number }>(
            world,
            `SELECT id FROM shop_products WHERE id NOT IN (SELECT product_id FROM shop_wishlist_items WHERE user_id = ?)
             AND id NOT IN (SELECT product_id FROM shop_cart_items WHERE user_id = ?) ORDER BY id DESC LIMIT 3`,
            id,
            id,
          );
          added.forEach((product, offset) => {
            insertRow(world, 'shop_wishlist_items', {
              user_id: id,
              product_id: product.id,
              added_at: `2022-0${offset + 4}-01T08:00:00`,
            });
            if (offset < 2)
              insertRow(world, 'shop_cart_items', { user_id: id, product_id: product.id, quantity: offset + 1 });
          });
          for (const productId of both(world))
            run(world, 'UPDATE shop_products SET stock = MAX(stock, 10) WHERE id = ?', productId);
        },
        plan: [
          ...login('shop', email, 'shopToken', true),
          act('var cart = apis.shop.show_cart({ access_token: shopToken }).items;\nprint(cart);', 'I read my cart.'),
          fetchPages(
            [['wishlist', pagedCall('shop', 'show_wishlist', 'access_token: shopToken')]],
            "print(wishlist.length + ' wishlist products');",
          ),
          decide(
            'intersect-not-union',
            [
              act(
                'var wished = new Set(wishlist.map((item) => item.product_id));\nvar ids = cart.filter((item) => wished.has(item.product_id)).map((item) => item.product_id);\nprint(ids);',
                'I keep the cart products that are also on the wishlist.',
              ),
            ],
            [
              act(
                'var ids = [...new Set(cart.map((item) => item.product_id).concat(wishlist.map((item) => item.product_id)))];\nprint(ids);',
                'I take the products from the cart and the wishlist.',
              ),
            ],
          ),
          act(orderCode(cardName), 'Now I place the order.'),
          finish(),
        ],
        check: (context) => checkOrder(context, id, both(context.before), cardName),
      };
    }),
};

export const shopScenarios: Scenario[] = [orderWishlistUnder, orderCartAndWishlist];
