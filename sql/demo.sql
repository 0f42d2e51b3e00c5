-- gpuagg demo: each question asked of the extension and of SQLite's own
-- SQL, on the tables sql/sample.sql makes: a star of sales (2,000,000 rows)
-- and its stores, products and customers; and t(g, i, x), 1,000,000 rows.
-- scripts/demo.sh runs the statements, times them and prints a table per
-- question; this file also runs as it is:
--   sqlite3 demo.db '.load ./libgpuagg' '.read sql/demo.sql'
--
-- Layout, read by scripts/demo.sh: "-- @ " a question's title, "-- ! " the
-- line shown when the two answers differ (why ours is the exact one), then
-- one-line statements: the extension's, then the builtin one; a gpu_query
-- question starts with its CREATE VIRTUAL TABLE, then the read of that
-- table. Reals are printed with 17 significant digits ('%!.17g'), enough to
-- tell doubles apart. The gpu_query questions come first; the others in the
-- order of their ratio on the CPU backend (2 cores), fastest first.
.headers on

-- @ gpu_query, a join of three tables: sales by region and category (2M sales, 200 stores, 5,000 products)
-- ! revenue: the builtin's sum rounds as it adds each group's rows (compensated since SQLite 3.43, still not correctly rounded); gpu_query rounds each group's exact total once
CREATE VIRTUAL TABLE temp.regions USING gpu_query((SELECT s.region, p.category, count(*) AS sales, sum(x.qty * p.price) AS revenue FROM sales x JOIN stores s ON s.id = x.store_id JOIN products p ON p.id = x.product_id GROUP BY s.region, p.category ORDER BY s.region, p.category));
SELECT region, category, sales, printf('%!.17g', revenue) AS revenue FROM regions;
SELECT s.region, p.category, count(*) AS sales, printf('%!.17g', sum(x.qty * p.price)) AS revenue FROM sales x JOIN stores s ON s.id = x.store_id JOIN products p ON p.id = x.product_id GROUP BY s.region, p.category ORDER BY s.region, p.category;

-- @ gpu_query, a top ten: the products with the most revenue in 2025
-- ! revenue: the builtin rounds as it adds; gpu_query rounds each product's exact total once
CREATE VIRTUAL TABLE temp.top10 USING gpu_query((SELECT p.id, p.brand, sum(x.qty * p.price) AS revenue FROM sales x JOIN products p ON p.id = x.product_id WHERE x.day >= '2025-01-01' GROUP BY p.id, p.brand ORDER BY revenue DESC, p.id LIMIT 10));
SELECT id, brand, printf('%!.17g', revenue) AS revenue FROM top10;
SELECT p.id, p.brand, printf('%!.17g', sum(x.qty * p.price)) AS revenue FROM sales x JOIN products p ON p.id = x.product_id WHERE x.day >= '2025-01-01' GROUP BY p.id, p.brand ORDER BY sum(x.qty * p.price) DESC, p.id LIMIT 10;

-- @ gpu_query, a filter on a dimension: units sold each month to online customers in Germany
-- ! (integers: they should not differ)
CREATE VIRTUAL TABLE temp.monthly USING gpu_query((SELECT substr(x.day, 1, 7) AS month, sum(x.qty) AS units FROM sales x JOIN customers c ON c.id = x.customer_id WHERE c.country = 'DE' AND c.segment = 'online' GROUP BY 1 ORDER BY 1));
SELECT month, units FROM monthly;
SELECT substr(x.day, 1, 7) AS month, sum(x.qty) AS units FROM sales x JOIN customers c ON c.id = x.customer_id WHERE c.country = 'DE' AND c.segment = 'online' GROUP BY 1 ORDER BY 1;

-- @ gpu_query, a correlated subquery: store 7's sales of its last two days above their product's average quantity (SQLite runs the subquery once per sale, over every sale; the engine groups the averages once and joins them)
-- ! (counts: they should not differ)
CREATE VIRTUAL TABLE temp.above USING gpu_query((SELECT p.category, count(*) AS sales FROM sales x JOIN products p ON p.id = x.product_id WHERE x.store_id = 7 AND x.day >= '2025-12-30' AND x.qty > (SELECT avg(y.qty) FROM sales y WHERE y.product_id = x.product_id) GROUP BY p.category ORDER BY 1));
SELECT category, sales FROM above;
SELECT p.category, count(*) AS sales FROM sales x JOIN products p ON p.id = x.product_id WHERE x.store_id = 7 AND x.day >= '2025-12-30' AND x.qty > (SELECT avg(y.qty) FROM sales y WHERE y.product_id = x.product_id) GROUP BY p.category ORDER BY 1;

-- @ Median of x over the first 300,000 rows (SQL has only a sort to offer)
-- ! (both take the middle values of the same sorted numbers, as SQLite's percentile extension does: they should not differ)
SELECT printf('%!.17g', gpu_median(x)) AS "gpu_median(x)" FROM t WHERE rowid <= 300000;
SELECT printf('%!.17g', min(x) + (max(x) - min(x)) * 0.5) AS "sort, middle rows" FROM (SELECT x FROM t WHERE rowid <= 300000 AND x IS NOT NULL ORDER BY x LIMIT 2 - (SELECT count(x) FROM t WHERE rowid <= 300000) % 2 OFFSET ((SELECT count(x) FROM t WHERE rowid <= 300000) - 1) / 2);

-- @ Statistics of column x: gpu_summary against SQL (it also gives min, max, variances, quartiles; SQLite has no stddev: the one-pass formula)
-- ! the SQL rounds every addition, and its stddev subtracts two large rounded totals (sum(x*x) - sum(x)^2/n), losing digits; gpu_summary's sum and stddev come from exact sums, rounded once
SELECT nulls AS "gpu_summary: nulls", printf('%!.17g', sum) AS sum, printf('%!.17g', stddev_samp) AS stddev FROM gpu_summary('t', 'x');
SELECT count(*) - count(x) AS "SQL: nulls", printf('%!.17g', sum(x)) AS sum, printf('%!.17g', sqrt((total(x*x) - total(x)*total(x)/count(x)) / (count(x) - 1))) AS stddev FROM t;

-- @ A histogram of x, 8 equal bins: gpu_histogram against GROUP BY
-- ! only values lying on a bin edge move: gpu_histogram places them as numpy.histogram does (edge i is lo + i*(hi - lo)/8, each value checked against its edges); the one-line SQL rounds (x - lo)*8/(hi - lo) and can land in the next bin
SELECT bin, count AS "gpu_histogram count" FROM gpu_histogram('t', 'x', 8);
SELECT min(CAST((x - lo) * 8 / (hi - lo) AS INT), 7) AS bin, count(*) AS "GROUP BY count" FROM t, (SELECT min(x) AS lo, max(x) AS hi FROM t) WHERE x IS NOT NULL GROUP BY bin ORDER BY bin;

-- @ GROUP BY g with count, sum and avg of x: gpu_group_by against GROUP BY (it also gives rows, total, min, max)
-- ! sum and avg: the builtins round as they add (compensated since SQLite 3.43, still not correctly rounded); gpu_group_by rounds each group's exact total once
SELECT key AS "gpu_group_by: g", count, printf('%!.17g', sum) AS sum, printf('%!.17g', avg) AS avg FROM gpu_group_by('t', 'g', 'x');
SELECT g AS "GROUP BY: g", count(x) AS count, printf('%!.17g', sum(x)) AS sum, printf('%!.17g', avg(x)) AS avg FROM t GROUP BY g;

-- @ Sample variance of x: gpu_var_samp against the SQL formula
-- ! the SQL rounds sum(x*x) and sum(x)^2 and subtracts them, losing digits; gpu_var_samp is the exact variance rounded once
SELECT printf('%!.17g', gpu_var_samp(x)) AS "gpu_var_samp(x)" FROM t;
SELECT printf('%!.17g', (total(x*x) - total(x)*total(x)/count(x)) / (count(x) - 1)) AS "(sum(x*x) - sum(x)^2/n)/(n-1)" FROM t;

-- @ Sum of x per group (GROUP BY g)
-- ! sum() rounds as it adds each group's rows (compensated since SQLite 3.43, still not correctly rounded); gpu_sum rounds each group's exact total once
SELECT g, printf('%!.17g', gpu_sum(x)) AS "gpu_sum(x)" FROM t GROUP BY g;
SELECT g, printf('%!.17g', sum(x)) AS "sum(x)" FROM t GROUP BY g;

-- @ Least and greatest x, and the row of the greatest
-- ! (min, max and argmax are exact both ways: they should not differ)
SELECT gpu_min(x) AS "gpu_min(x)", gpu_max(x) AS "gpu_max(x)", gpu_argmax(rowid, x) AS "gpu_argmax(rowid, x)" FROM t;
SELECT min(x) AS "min(x)", max(x) AS "max(x)", (SELECT rowid FROM t WHERE x IS NOT NULL ORDER BY x DESC, rowid LIMIT 1) AS "ORDER BY x DESC LIMIT 1" FROM t;

-- @ Sum and mean of x (reals, 1% NULL)
-- ! sum() adds the doubles in order, rounding as it goes (compensated since SQLite 3.43, still not correctly rounded); gpu_sum keeps the exact total and rounds once: the correctly rounded sum (gpu_avg: that total over the count)
SELECT printf('%!.17g', gpu_sum(x)) AS "gpu_sum(x)", printf('%!.17g', gpu_avg(x)) AS "gpu_avg(x)" FROM t;
SELECT printf('%!.17g', sum(x)) AS "sum(x)", printf('%!.17g', avg(x)) AS "avg(x)" FROM t;

-- @ A sliding sum, 1,000 rows wide, over the first 300,000 rows: its value at the last row
-- ! the builtin window sum adds each entering row and subtracts each leaving one in doubles, so its rounding depends on the rows that came before; gpu_sum's frame total is exact at every row
SELECT printf('%!.17g', s) AS "gpu_sum(x) OVER w" FROM (SELECT rowid AS r, gpu_sum(x) OVER (ORDER BY rowid ROWS 999 PRECEDING) AS s FROM t WHERE rowid <= 300000) WHERE r = 300000;
SELECT printf('%!.17g', s) AS "sum(x) OVER w" FROM (SELECT rowid AS r, sum(x) OVER (ORDER BY rowid ROWS 999 PRECEDING) AS s FROM t WHERE rowid <= 300000) WHERE r = 300000;
