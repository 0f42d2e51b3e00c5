-- A sample table for the demo: 1,000,000 rows (the demo, builtins included,
-- then runs in seconds on two cores without a GPU), 16 groups, an integer
-- column i and a real column x (three decimals, 1% NULL).
CREATE TABLE IF NOT EXISTS t(g INTEGER, i INTEGER, x REAL);
INSERT INTO t
SELECT value % 16,
       (random() % 1000000),
       CASE WHEN value % 97 = 0 THEN NULL ELSE (random() % 1000000) / 1000.0 END
FROM generate_series(1, 1000000)
WHERE NOT EXISTS (SELECT 1 FROM t LIMIT 1);
