import { type ApiCall, ApiError, defineApp, pageParameters, param } from '../api/definition.js';
import { cents, found, maybe, num, pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';
import { addLink, removeLink } from './links.js';

const productColumns = 'p.id AS product_id, p.name, p.category, p.price, p.rating, p.stock, p.seller';
const productExample = {
  product_id: 1,
  name: 'string',
  category: 'string',
  price: 1.5,
  rating: 4.5,
  stock: 1,
  seller: 'string',
};

interface CartRow {
  product_id: number;
  name: string;
  price: number;
  stock: number;
  quantity: number;
}

const product = (call: ApiCall) =>
  found(
    oneRow<{ product_id: number; stock: number; price: number }>(
      call.db,
      `SELECT ${productColumns} FROM shop_products p WHERE p.id = ?`,
      num(call.args, 'product_id'),
    ),
    'Product',
  );

const cart = (call: ApiCall): CartRow[] =>
  allRows<CartRow>(
    call.db,
    `SELECT p.id AS product_id, p.name, p.price, p.stock, c.quantity FROM shop_cart_items c
     JOIN shop_products p ON p.id = c.product_id WHERE c.user_id = ? ORDER BY p.id`,
    call.userId,
  );

const productIdParameter = param.required('product_id', 'integer', 'The id of the product.');

/** Places an order for the listed cart items (all when null) and takes them out of the cart. */
function placeOrder(call: ApiCall): { order_id: number; total: number } {
  found(
    oneRow(
      call.db,
      'SELECT id FROM supervisor_payment_cards WHERE id = ? AND person_id = ?',
      num(call.args, 'payment_card_id'),
      call.userId,
    ),
    'Payment card',
  );
  found(
    oneRow(
      call.db,
      'SELECT id FROM supervisor_addresses WHERE id = ? AND person_id = ?',
      num(call.args, 'address_id'),
      call.userId,
    ),
    'Address',
  );
  const wanted = maybe<number[]>(call.args, 'product_ids');
  const items = cart(call);
  if (wanted) {
    const missing = wanted.filter((id) => !items.some((item) => item.product_id === id));
    if (missing.length) throw new ApiError(422, `Products not in your cart: ${missing.join(', ')}.`);
  }
  const ordered = wanted ? items.filter((item) => wanted.includes(item.product_id)) : items;
  if (ordered.length === 0) throw new ApiError(422, 'Your cart is empty.');
  const soldOut = ordered.find((item) => item.stock < item.quantity);
  if (soldOut) throw new ApiError(409, `Not enough stock of product ${soldOut.product_id} (${soldOut.name}).`);
  const total = cents(ordered.reduce((sum, item) => sum + item.price * item.quantity, 0));
  const orderId = insertRow(call.db, 'shop_orders', {
    user_id: call.userId,
    address_id: num(call.args, 'address_id'),
    payment_card_id: num(call.args, 'payment_card_id'),
    total,
    status: 'placed',
    created_at: call.task.now,
  });
  for (const item of ordered) {
    insertRow(call.db, 'shop_order_items', {
      order_id: orderId,
      product_id: item.product_id,
      quantity: item.quantity,
      unit_price: item.price,
    });
    run(call.db, 'UPDATE shop_products SET stock = stock - ? WHERE id = ?', item.quantity, item.product_id);
    run(call.db, 'DELETE FROM shop_cart_items WHERE user_id = ? AND product_id = ?', call.userId, item.product_id);
  }
  return { order_id: orderId, total };
}

/** An online shop: products, cart, wishlist, orders, reviews. */
export const shopApp = defineApp(
  'shop',
  'An online shop: search products, keep a cart and a wishlist, place orders, write reviews.',
  [
    ...accountApis('shop', { username: 'email', resetChannel: 'email' }),
    {
      name: 'search_products',
      method: 'GET',
      description: 'Search products by words of the name, category and highest price.',
      authenticated: false,
      parameters: [
        param.optional('query', 'string', 'Words to look for in the name.', ''),
        param.optional('category', 'string', 'Only this category.', null, { nullable: true }),
        param.optional('max_price', 'number', 'Only products at or below this price.', null, {
          nullable: true,
          minimum: 0,
        }),
        ...pageParameters(['name', 'price', 'rating']),
      ],
      responseExample: [productExample],
      handler: (call) => {
        const category = maybe<string>(call.args, 'category');
        const maxPrice = maybe<number>(call.args, 'max_price');
        return pageOf(
          allRows(
            call.db,
            `SELECT ${productColumns} FROM shop_products p WHERE lower(p.name) LIKE ? AND (? IS NULL OR p.category = ?)
             AND (? IS NULL OR p.price <= ?) ORDER BY p.id`,
            `%${text(call.args, 'query').toLowerCase()}%`,
            category,
            category,
            maxPrice,
            maxPrice,
          ),
          call.args,
        );
      },
    },
    {
      name: 'show_product',
      method: 'GET',
      description: 'Show one product.',
      authenticated: false,
      parameters: [productIdParameter],
      responseExample: productExample,
      handler: (call) => product(call),
    },
    {
      name: 'show_cart',
      method: 'GET',
      description: 'Show your cart and its total.',
      parameters: [],
      responseExample: { items: [{ product_id: 1, name: 'string', price: 1.5, quantity: 1 }], total: 1.5 },
      handler: (call) => {
        const items = cart(call).map(({ stock: _stock, ...item }) => item);
        return { items, total: cents(items.reduce((sum, item) => sum + item.price * item.quantity, 0)) };
      },
    },
    {
      name: 'add_product_to_cart',
      method: 'POST',
      description: 'Put a product in your cart.',
      parameters: [
        productIdParameter,
        param.optional('quantity', 'integer', 'How many.', 1, { minimum: 1, maximum: 10 }),
      ],
      responseExample: { message: 'string' },
      handler: (call) => {
        const item = product(call);
        addLink(
          call.db,
          'shop_cart_items',
          { user_id: call.userId, product_id: item.product_id },
          { quantity: num(call.args, 'quantity') },
          'The product is already in your cart; use update_cart_item to change the quantity.',
        );
        return { message: 'Product added to the cart.' };
      },
    },
    {
      name: 'update_cart_item',
      method: 'PATCH',
      description: 'Change the quantity of a product in your cart.',
      parameters: [
        productIdParameter,
        param.required('quantity', 'integer', 'The new quantity.', { minimum: 1, maximum: 10 }),
      ],
      responseExample: { message: 'string' },
      handler: (call) => {
        const changed = run(
          call.db,
          'UPDATE shop_cart_items SET quantity = ? WHERE user_id = ? AND product_id = ?',
          num(call.args, 'quantity'),
          call.userId,
          num(call.args, 'product_id'),
        );
        if (changed === 0) throw new ApiError(404, 'The product is not in your cart.');
        return { message: 'Cart updated.' };
      },
    },
    {
      name: 'remove_product_from_cart',
      method: 'DELETE',
      description: 'Take a product out of your cart.',
      parameters: [productIdParameter],
      responseExample: { message: 'string' },
      handler: (call) => {
        removeLink(
          call.db,
          'shop_cart_items',
          { user_id: call.userId, product_id: num(call.args, 'product_id') },
          'The product is not in your cart.',
        );
        return { message: 'Product removed from the cart.' };
      },
    },
    {
      name: 'show_wishlist',
      method: 'GET',
      description: 'Show the products on your wishlist, most recently added first.',
      parameters: pageParameters(['name', 'price', 'added_at']),
      responseExample: [{ ...productExample, added_at: 'string' }],
      handler: (call) =>
        pageOf(
          allRows(
            call.db,
            `SELECT ${productColumns}, w.added_at FROM shop_wishlist_items w JOIN shop_products p ON p.id = w.product_id
           WHERE w.user_id = ? ORDER BY w.added_at DESC, p.id`,
            call.userId,
          ),
          call.args,
        ),
    },
    {
      name: 'add_product_to_wishlist',
      method: 'POST',
      description: 'Put a product on your wishlist.',
      parameters: [productIdParameter],
      responseExample: { message: 'string' },
      handler: (call) => {
        const item = product(call);
        addLink(
          call.db,
          'shop_wishlist_items',
          { user_id: call.userId, product_id: item.product_id },
          { added_at: call.task.now },
          'The product is already on your wishlist.',
        );
        return { message: 'Product added to the wishlist.' };
      },
    },
    {
      name: 'remove_product_from_wishlist',
      method: 'DELETE',
      description: 'Take a product off your wishlist.',
      parameters: [productIdParameter],
      responseExample: { message: 'string' },
      handler: (call) => {
        removeLink(
          call.db,
          'shop_wishlist_items',
          { user_id: call.userId, product_id: num(call.args, 'product_id') },
          'The product is not on your wishlist.',
        );
        return { message: 'Product removed from the wishlist.' };
      },
    },
    {
      name: 'place_order',
      method: 'POST',
      description:
        'Order products from your cart, paid with one of your payment cards and shipped to one of your addresses (ids from the supervisor app). Ordered products leave the cart.',
      parameters: [
        param.required('payment_card_id', 'integer', 'The id of your payment card.'),
        param.required('address_id', 'integer', 'The id of your shipping address.'),
        param.optional(
          'product_ids',
          'list[integer]',
          'Which cart products to order; the whole cart when null.',
          null,
          {
            nullable: true,
            minLength: 1,
          },
        ),
      ],
      responseExample: { message: 'string', order_id: 1, total: 1.5 },
      handler: (call) => ({ message: 'Order placed.', ...placeOrder(call) }),
    },
    {
      name: 'show_orders',
      method: 'GET',
      description: 'Show your orders, newest first (without their items; see show_order).',
      parameters: pageParameters(['created_at', 'total']),
      responseExample: [{ order_id: 1, total: 1.5, status: 'string', created_at: 'string' }],
      handler: (call) =>
        pageOf(
          allRows(
            call.db,
            'SELECT id AS order_id, total, status, created_at FROM shop_orders WHERE user_id = ? ORDER BY created_at DESC, id DESC',
            call.userId,
          ),
          call.args,
        ),
    },
    {
      name: 'show_order',
      method: 'GET',
      description: 'Show one of your orders with its items.',
      parameters: [param.required('order_id', 'integer', 'The id of the order.')],
      responseExample: {
        order_id: 1,
        total: 1.5,
        status: 'string',
        created_at: 'string',
        address_id: 1,
        payment_card_id: 1,
        items: [{ product_id: 1, name: 'string', quantity: 1, unit_price: 1.5 }],
      },
      handler: (call) => {
        const order = found(
          oneRow<{ order_id: number }>(
            call.db,
            'SELECT id AS order_id, total, status, created_at, address_id, payment_card_id FROM shop_orders WHERE id = ? AND user_id = ?',
            num(call.args, 'order_id'),
            call.userId,
          ),
          'Order',
        );
        const items = allRows(
          call.db,
          `SELECT i.product_id, p.name, i.quantity, i.unit_price FROM shop_order_items i JOIN shop_products p ON p.id = i.product_id
         WHERE i.order_id = ? ORDER BY i.product_id`,
          order.order_id,
        );
        return { ...order, items };
      },
    },
    {
      name: 'write_review',
      method: 'POST',
      description: 'Review a product you ordered.',
      parameters: [
        productIdParameter,
        param.required('rating', 'integer', 'Stars from 1 to 5.', { minimum: 1, maximum: 5 }),
        param.optional('text', 'string', 'What you think of it.', ''),
      ],
      responseExample: { message: 'string', review_id: 1 },
      handler: (call) => {
        const item = product(call);
        const bought = oneRow(
          call.db,
          'SELECT 1 FROM shop_order_items i JOIN shop_orders o ON o.id = i.order_id WHERE o.user_id = ? AND i.product_id = ?',
          call.userId,
          item.product_id,
        );
        if (!bought) throw new ApiError(403, 'You can only review products you ordered.');
        const id = insertRow(call.db, 'shop_reviews', {
          user_id: call.userId,
          product_id: item.product_id,
          rating: num(call.args, 'rating'),
          text: text(call.args, 'text'),
          created_at: call.task.now,
        });
        return { message: 'Review posted.', review_id: id };
      },
    },
  ],
);
