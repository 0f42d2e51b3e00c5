-- gpuagg demo: each gpu_* aggregate next to the builtin it matches.
-- Run from the top of the build tree:
--   sqlite3 demo.db '.load ./libgpuagg' '.read sql/demo.sql'
-- The table `t` is made by sql/sample.sql if it is not there yet.
.headers on
.mode box
SELECT json_extract(gpuagg_info(), '$.backend') AS backend,
       coalesce(json_extract(gpuagg_info(), '$.device'), '-') AS device;
SELECT count(*) AS rows FROM t;

SELECT 'gpu_sum' AS fn, gpu_sum(x) AS gpu, sum(x) AS builtin FROM t
UNION ALL SELECT 'gpu_total', gpu_total(x), total(x) FROM t
UNION ALL SELECT 'gpu_avg', gpu_avg(x), avg(x) FROM t
UNION ALL SELECT 'gpu_count', gpu_count(x), count(x) FROM t
UNION ALL SELECT 'gpu_sum(i)', gpu_sum(i), sum(i) FROM t;

-- Grouped, with FILTER:
SELECT g, gpu_sum(i) AS gpu_sum, sum(i) AS sum,
       gpu_avg(x) FILTER (WHERE x > 0) AS gpu_avg_pos, avg(x) FILTER (WHERE x > 0) AS avg_pos
FROM t GROUP BY g ORDER BY g LIMIT 5;

-- Extremes, and the row they come from:
SELECT gpu_min(x) AS gpu_min, min(x) AS min, gpu_max(i) AS gpu_max, max(i) AS max,
       gpu_argmax(g, x) AS g_of_max_x FROM t;

-- A histogram of x, 8 bins over its range, next to the GROUP BY that counts the same bins:
SELECT h.bin, h.lo, h.hi, h.count, r.n AS group_by
FROM gpu_histogram('t', 'x', 8) h
LEFT JOIN (SELECT min(CAST((x - (SELECT min(x) FROM t)) * 8 / ((SELECT max(x) FROM t) - (SELECT min(x) FROM t)) AS INT), 7) AS b,
                  count(*) AS n FROM t WHERE typeof(x) IN ('integer', 'real') GROUP BY b) r ON r.b = h.bin;

-- GROUP BY with its aggregates, as a table-valued function, next to the GROUP BY it equals:
SELECT key AS g, rows, count, sum, avg, min, max FROM gpu_group_by('t', 'g', 'x') LIMIT 5;
SELECT g, count(*) AS rows, count(x) AS count, sum(x) AS sum, avg(x) AS avg, min(x) AS min, max(x) AS max
FROM t GROUP BY g LIMIT 5;

-- Every column's statistics (exact sums and variances), and the SQL that gives some of them:
SELECT name, rows, nulls, integers, reals, min, max, sum, avg, var_samp, stddev_samp FROM gpu_summary('t');
SELECT 'x' AS name, count(*) AS rows, count(*) - count(x) AS nulls, min(x) AS min, max(x) AS max,
       sum(x) AS sum, avg(x) AS avg, (total(x*x) - total(x)*total(x)/count(x))/(count(x) - 1) AS var_samp_naive
FROM t;

-- Statistics: exact variances, and the median and quartiles (the percentile extension's definition;
-- SQLite's own SQL has only a sort to offer):
SELECT gpu_var_samp(x) AS var_samp, gpu_stddev(x) AS stddev, gpu_median(x) AS median,
       gpu_percentile_cont(x, 0.25) AS q25, gpu_percentile_disc(x, 0.75) AS q75_disc FROM t;
SELECT x AS median_lower FROM t WHERE x IS NOT NULL ORDER BY x LIMIT 1 OFFSET (SELECT (count(x) - 1)/2 FROM t);

-- Window forms: a sliding sum that is exact at every row, next to the builtin's:
SELECT rowid, x, gpu_sum(x) OVER w AS gpu_sum, sum(x) OVER w AS sum, gpu_max(x) OVER w AS gpu_max
FROM t WINDOW w AS (ORDER BY rowid ROWS 2 PRECEDING) LIMIT 5;

-- What ran where:
SELECT json_extract(gpuagg_info(), '$.backend') AS backend,
       json_extract(gpuagg_info(), '$.chunks_flushed') AS chunks_on_device,
       json_extract(gpuagg_info(), '$.chunks_cpu') AS chunks_on_cpu,
       json_extract(gpuagg_info(), '$.bytes_copied') AS bytes_copied,
       json_extract(gpuagg_info(), '$.kernel_ms') AS kernel_ms;
