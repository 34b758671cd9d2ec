import { PGlite } from '@electric-sql/pglite';

let t = performance.now();
const db = await PGlite.create();
console.log('fresh', performance.now() - t);
t = performance.now();
const dump = await db.dumpDataDir('none');
console.log('dump', performance.now() - t, dump.size);
t = performance.now();
const db2 = await PGlite.create({ loadDataDir: dump });
console.log('from dump', performance.now() - t);
t = performance.now();
const db3 = await PGlite.create({ loadDataDir: dump });
console.log('from dump 2', performance.now() - t);
console.log((await db3.query('select 1 as x')).rows);
