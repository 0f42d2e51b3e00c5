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

-- What ran where:
SELECT json_extract(gpuagg_info(), '$.backend') AS backend,
       json_extract(gpuagg_info(), '$.chunks_flushed') AS chunks_on_device,
       json_extract(gpuagg_info(), '$.chunks_cpu') AS chunks_on_cpu,
       json_extract(gpuagg_info(), '$.bytes_copied') AS bytes_copied,
       json_extract(gpuagg_info(), '$.kernel_ms') AS kernel_ms;
