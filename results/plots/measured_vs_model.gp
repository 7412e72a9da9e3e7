# measured_vs_model.gp — measured time of every ok candidate against the model's
# estimate, one colour per strategy, each shape's best measured config and the
# model's first pick among its measured configs marked; rendered by `npu-tune plot`.
# Variables (gnuplot -e): in = data file, out = image, term = 'png' or 'svg',
# unit = 'cycles' or 's', estimate = the estimate's unit ('cycles'),
# strategies = 'IS WS OS', scale = measured units per estimate unit of the
# reference line (1 for cycles: the line is y = x; 0: no line, the shapes' estimates
# are scaled differently), logx, logy = how each axis is
# drawn: 0 linear (the values span less than a decade), 1 log with numbers at 1, 2
# and 5 times the powers of ten, 2 log with numbers at the powers of ten.
# Data columns: estimate measured strategy problem M N K batch m n k double_buffer
# cores split mark (best, pick, both or -)
# Restyle: copy this directory, edit, and run with NPU_TUNE_PLOTS=that/dir.

if (!exists("term")) term = 'png'
if (!exists("unit")) unit = 'cycles'
if (!exists("estimate")) estimate = 'cycles'
if (!exists("scale")) scale = 1.0
if (!exists("strategies")) strategies = 'IS WS OS'
if (!exists("logx")) logx = 1
if (!exists("logy")) logy = 1
if (term eq 'svg') {
    set terminal svg size 900,650 dynamic font 'Sans,12' background '#ffffff'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 900,650 font 'Sans,11' background '#ffffff'
    } else {
        set terminal png size 900,650 background '#ffffff'
    }
}
set termoption noenhanced
set output out

color(s) = s eq 'IS' ? '#1f77b4' : s eq 'WS' ? '#ff7f0e' : s eq 'OS' ? '#2ca02c' : '#7f7f7f'
marker(s) = s eq 'IS' ? 7 : s eq 'WS' ? 9 : s eq 'OS' ? 5 : 13
marked(m) = strcol(15) eq m || strcol(15) eq 'both'

set title 'Measured against the model estimate'
set xlabel sprintf('model estimate (%s)', estimate)
set ylabel sprintf('measured (%s)', unit)
set format x '%g'
set format y '%g'
if (logx) {
    set logscale x
    if (logx == 1) { do for [e = -15:15] { set xtics add (2 * 10.0**e, 5 * 10.0**e) } }
}
if (logy) {
    set logscale y
    if (logy == 1) { do for [e = -15:15] { set ytics add (2 * 10.0**e, 5 * 10.0**e) } }
}
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1
set key top left Left reverse box opaque
set datafile commentschars '#'
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05

linetitle = unit eq estimate ? 'measured = model' : sprintf('measured = %.3g %s x model', scale, unit)

plot for [s in strategies] in using 1:(strcol(3) eq s ? $2 : NaN) \
         with points pt marker(s) ps 0.9 lc rgb color(s) title s, \
     in using 1:(marked('best') ? $2 : NaN) with points pt 6 ps 2.4 lw 2 lc rgb '#e41a1c' \
         title 'best measured (per shape)', \
     in using 1:(marked('pick') ? $2 : NaN) with points pt 4 ps 2.0 lw 2 lc rgb '#000000' \
         title "model's first pick (per shape)", \
     (scale > 0 ? scale * x : NaN) with lines dt 2 lw 1.5 lc rgb '#444444' \
         title (scale > 0 ? linetitle : '')
