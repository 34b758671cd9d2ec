import { describe, expect, it } from 'vitest';
import { mysqlCellKind, postgresCellKind, toPythonValue } from './cell-values.js';
import { formatPythonRows, formatPythonValue } from './python-text.js';

const printed = (kind: Parameters<typeof toPythonValue>[0], raw: unknown) =>
  formatPythonValue(toPythonValue(kind, raw));

describe('column kinds', () => {
  it('maps MySQL protocol types as mysql-connector converts them', () => {
    expect([0, 246].map((type) => mysqlCellKind(type, 63))).toEqual(['decimal', 'decimal']);
    expect([1, 2, 3, 8, 9, 13, 16].map((type) => mysqlCellKind(type, 63))).toEqual(Array(7).fill('int'));
    expect([4, 5].map((type) => mysqlCellKind(type, 63))).toEqual(['float', 'float']);
    expect([mysqlCellKind(10, 63), mysqlCellKind(12, 63), mysqlCellKind(7, 63), mysqlCellKind(11, 63)]).toEqual([
      'date',
      'datetime',
      'datetime',
      'time',
    ]);
    // TEXT columns arrive as BLOB with a text character set; binary strings have charset 63.
    expect(mysqlCellKind(252, 45)).toBe('text');
    expect(mysqlCellKind(253, 224)).toBe('text');
    expect(mysqlCellKind(252, 63)).toBe('bytes');
    expect(mysqlCellKind(6, 63)).toBe('other');
  });

  it('maps PostgreSQL type OIDs to the same kinds', () => {
    expect([20, 21, 23].map(postgresCellKind)).toEqual(['int', 'int', 'int']);
    expect([700, 701, 1700, 25, 1043, 1082, 1114, 1184, 1083, 17, 16, 3802].map(postgresCellKind)).toEqual([
      'float',
      'float',
      'decimal',
      'text',
      'text',
      'date',
      'datetime',
      'datetime',
      'time',
      'bytes',
      'bool',
      'other',
    ]);
  });
});

describe('toPythonValue', () => {
  it('prints numbers from engine text as Python would', () => {
    expect(printed('int', '9007199254740993')).toBe('9007199254740993');
    expect(printed('int', 42)).toBe('42');
    expect(printed('int', Uint8Array.from([1, 0]))).toBe('256');
    expect(printed('float', '2011')).toBe('2011.0');
    expect(printed('float', 1e22)).toBe('1e+22');
    expect(printed('float', 'Infinity')).toBe('inf');
    expect(printed('decimal', '2.50')).toBe("Decimal('2.50')");
    expect(printed('bool', 't')).toBe('1');
  });

  it('prints dates, times and bytes as datetime, timedelta and bytes', () => {
    expect(printed('date', '2020-01-02')).toBe('datetime.date(2020, 1, 2)');
    expect(printed('date', '0000-00-00')).toBe('None');
    expect(printed('datetime', '2020-01-02 03:04:00')).toBe('datetime.datetime(2020, 1, 2, 3, 4)');
    expect(printed('datetime', '2020-01-02 03:04:05.000006')).toBe('datetime.datetime(2020, 1, 2, 3, 4, 5, 6)');
    expect(printed('datetime', '2020-01-02 03:04:05.5+00')).toBe('datetime.datetime(2020, 1, 2, 3, 4, 5, 500000)');
    expect(printed('time', '01:00:00')).toBe('datetime.timedelta(seconds=3600)');
    expect(printed('time', '-01:00:00')).toBe('datetime.timedelta(days=-1, seconds=82800)');
    expect(printed('time', '838:59:59.000001')).toBe('datetime.timedelta(days=34, seconds=82799, microseconds=1)');
    expect(printed('time', '00:00:00')).toBe('datetime.timedelta(0)');
    expect(printed('bytes', '\\x00ff27')).toBe(`b"\\x00\\xff'"`);
    expect(printed('bytes', Uint8Array.from([0x61, 0x0a]))).toBe("b'a\\n'");
  });

  it('keeps text and NULL as they are', () => {
    expect(
      formatPythonRows([
        [toPythonValue('text', "it's"), toPythonValue('text', null), toPythonValue('other', '{"a":1}')],
      ]),
    ).toBe(`[("it's", None, '{"a":1}')]`);
  });
});
