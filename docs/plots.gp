# The report's plots, from the CSV that `make bench` writes (BENCH_OUT).
# Usage: gnuplot -e "data='docs/data'; out='docs'" docs/plots.gp   (make plots)
if (!exists("data")) data = 'docs/data'
if (!exists("out")) out = 'docs'
set datafile separator ','
set terminal pngcairo size 1100,620 font 'sans,10'

# 1. Rows per second against row count: SQLite's sum, gpu_sum on the CUDA
#    backend, gpu_sum on the CPU backend.
set output out.'/scale.png'
set title 'sum(x) through SQLite: rows per second by row count'
set logscale x 10
set xlabel 'rows'
set ylabel 'million rows per second'
set yrange [0:*]
set key bottom right
set xrange [30000:200000000]
set format x '10^{%L}'
set grid ytics
plot data.'/scale.csv' skip 1 using 1:($2/1e6) with linespoints lw 2 pt 7 title 'builtin sum(x)', \
     ''                skip 1 using 1:($3/1e6) with linespoints lw 2 pt 5 title 'gpu\_sum(x), CUDA backend', \
     ''                skip 1 using 1:($4/1e6) with linespoints lw 2 pt 9 title 'gpu\_sum(x), CPU backend'

# 2. Kernels: GB/s read, ours against CUB, and the copy ceiling.
reset
set datafile separator ','
set output out.'/kernels.png'
set title 'Device-resident kernels, 256M values: GB/s read'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -35 left font ',8'
set ylabel 'GB/s'
set yrange [0:*]
set grid ytics
set key outside top center horizontal
set bmargin 9
plot data.'/kernels.csv' skip 1 using 4:xtic(1) title 'CUB', \
     ''                  skip 1 using 5 title 'gpuagg', \
     ''                  skip 1 using 0:6 with lines lw 2 dt 2 lc rgb 'black' title 'copy ceiling (read+write)'

# 3. gpu_query (issue 28, H100): each question's time, builtin SQL, the first
#    run (the engine's CPU operators), repeated runs (over kept columns on the
#    device) and DuckDB in memory; log scale.
reset
set datafile separator ','
set output out.'/query.png'
set title 'gpu\_query, 10M rows, H100: ms per question (log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y 10
set yrange [0.1:100000]
set ylabel 'ms'
set grid ytics
set key outside top center horizontal
qdata = exists("qdata") ? qdata : data.'/h100-query-device/query.csv'
plot qdata skip 1 using 2:xtic(1) title 'builtin SQL', \
     ''    skip 1 using 3 title 'gpu\_query, first run', \
     ''    skip 1 using 4 title 'gpu\_query, repeated (device)', \
     ''    skip 1 using 5 title 'DuckDB 1.5.6, 16 threads'
