-- The demo's tables. A star, as an analyst's database has one: 2,000,000
-- sales, each of a store (200, in 4 regions), a product (5,000, in 5
-- categories) and a customer (100,000, in 3 segments and 10 countries), on a
-- day of 2024-2025. And t: 1,000,000 rows, 16 groups, an integer column i and
-- a real column x (three decimals, 1% NULL). Made once (a second run adds
-- nothing).
CREATE TABLE IF NOT EXISTS stores(id INTEGER PRIMARY KEY, region TEXT, city TEXT);
CREATE TABLE IF NOT EXISTS products(id INTEGER PRIMARY KEY, category TEXT, brand TEXT, price REAL);
CREATE TABLE IF NOT EXISTS customers(id INTEGER PRIMARY KEY, segment TEXT, country TEXT);
CREATE TABLE IF NOT EXISTS sales(id INTEGER PRIMARY KEY, day TEXT, store_id INTEGER, product_id INTEGER,
  customer_id INTEGER, qty INTEGER);
INSERT INTO stores SELECT value, CASE value % 4 WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN 'east'
  ELSE 'west' END, 'city ' || (value % 50) FROM generate_series(1, 200) WHERE NOT EXISTS (SELECT 1 FROM stores);
INSERT INTO products SELECT value, CASE value % 5 WHEN 0 THEN 'food' WHEN 1 THEN 'drinks' WHEN 2 THEN 'home'
  WHEN 3 THEN 'toys' ELSE 'garden' END, 'brand ' || (value % 97), round(1 + abs(random()) % 10000 / 100.0, 2)
  FROM generate_series(1, 5000) WHERE NOT EXISTS (SELECT 1 FROM products);
INSERT INTO customers SELECT value, CASE value % 3 WHEN 0 THEN 'retail' WHEN 1 THEN 'wholesale' ELSE 'online' END,
  substr('DEFRITESNLPLSEDKFIBE', 1 + 2 * (value % 10), 2)
  FROM generate_series(1, 100000) WHERE NOT EXISTS (SELECT 1 FROM customers);
INSERT INTO sales SELECT value, date('2024-01-01', '+' || (abs(random()) % 731) || ' days'),
  1 + abs(random()) % 200, 1 + abs(random()) % 5000, 1 + abs(random()) % 100000, 1 + abs(random()) % 9
  FROM generate_series(1, 2000000) WHERE NOT EXISTS (SELECT 1 FROM sales);

CREATE TABLE IF NOT EXISTS t(g INTEGER, i INTEGER, x REAL);
INSERT INTO t
SELECT value % 16,
       (random() % 1000000),
       CASE WHEN value % 97 = 0 THEN NULL ELSE (random() % 1000000) / 1000.0 END
FROM generate_series(1, 1000000)
WHERE NOT EXISTS (SELECT 1 FROM t LIMIT 1);
