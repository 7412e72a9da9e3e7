# measured_vs_model.gp — measured time of every ok candidate against the model's
# estimated cycles, log-log, one colour per strategy; rendered by `npu-tune plot`.
# Variables (gnuplot -e): in = data file, out = image, term = 'png' or 'svg',
# unit = 'cycles' or 's', strategies = 'IS WS OS', scale = measured units per
# model cycle of the reference line (1 for cycles: the line is y = x).
# Data columns: est_cycles measured strategy problem M N K m n k double_buffer cores split
# Restyle: copy this directory, edit, and run with NPU_TUNE_PLOTS=that/dir.

if (!exists("term")) term = 'png'
if (!exists("unit")) unit = 'cycles'
if (!exists("scale")) scale = 1.0
if (!exists("strategies")) strategies = 'IS WS OS'
if (term eq 'svg') {
    set terminal svg size 900,650 dynamic font 'Sans,12' background '#ffffff'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 900,650 font 'Sans,11' background '#ffffff'
    } else {
        set terminal png size 900,650 background '#ffffff'
    }
}
set output out

color(s) = s eq 'IS' ? '#1f77b4' : s eq 'WS' ? '#ff7f0e' : s eq 'OS' ? '#2ca02c' : '#7f7f7f'
marker(s) = s eq 'IS' ? 7 : s eq 'WS' ? 9 : s eq 'OS' ? 5 : 13

set title 'Measured vs model estimate'
set xlabel 'model estimate (cycles)'
set ylabel sprintf('measured (%s)', unit)
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1
set key top left Left reverse box opaque
set datafile commentschars '#'
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05

linetitle = unit eq 'cycles' ? 'measured = model' : sprintf('measured = %.3g %s x model cycles', scale, unit)

plot for [s in strategies] in using 1:(strcol(3) eq s ? $2 : NaN) \
         with points pt marker(s) ps 0.9 lc rgb color(s) title s noenhanced, \
     scale * x with lines dt 2 lw 1.5 lc rgb '#444444' title linetitle noenhanced
