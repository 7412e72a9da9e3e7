# strategies.gp — best measured time per strategy for every shape, as grouped
# horizontal bars (the strategy comparison figure; the shapes' names, however
# long, sit left of their bars); rendered by `npu-tune plot`.
# Variables (gnuplot -e): in = data file, out = image, term = 'png' or 'svg',
# unit = 'cycles' or 's', strategies = 'IS WS OS' (the columns after the label,
# in order), nshapes = rows, logx = how the value axis is drawn: 0 linear, from 0;
# 1 log with numbers at 1, 2 and 5 times the powers of ten; 2 log with numbers at
# the powers of ten; low = the smallest value (a log axis starts at half of it).
# Data: one row per shape, "label" then the best value per strategy ('-' = none).
# Restyle: copy this directory, edit, and run with NPU_TUNE_PLOTS=that/dir.

if (!exists("term")) term = 'png'
if (!exists("unit")) unit = 'cycles'
if (!exists("logx")) logx = 0
if (!exists("strategies")) strategies = 'IS WS OS'
if (!exists("nshapes")) nshapes = 1
if (!exists("low")) low = 1
if (term eq 'svg') {
    set terminal svg size 1000,600 dynamic font 'Sans,12' background '#ffffff'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 1000,600 font 'Sans,11' background '#ffffff'
    } else {
        set terminal png size 1000,600 background '#ffffff'
    }
}
set termoption noenhanced
set output out

color(s) = s eq 'IS' ? '#1f77b4' : s eq 'WS' ? '#ff7f0e' : s eq 'OS' ? '#2ca02c' : '#7f7f7f'
ns = words(strategies)
h = 0.8 / ns                      # a bar's height; a shape's bars take 0.8 of a row
y(row, i) = row + (i - (ns + 1) / 2.0) * h

set title 'Best measured per strategy and shape (shorter is better)'
set xlabel sprintf('best measured (%s)', unit)
set datafile missing '-'
set style fill solid 0.85 border rgb '#333333'
set grid xtics lc rgb '#dddddd'
set key below center horizontal Left reverse
set ytics nomirror scale 0
set yrange [nshapes - 0.5 : -0.5]
set format x '%g'
if (logx) {
    set logscale x
    if (logx == 1) { do for [e = -15:15] { set xtics add (2 * 10.0**e, 5 * 10.0**e) } }
    base = low / 2.0              # where the bars start: a log axis has no 0
    set xrange [base : *]
} else {
    base = 0
    set xrange [0 : *]
}

plot for [i = 1:ns] in using (column(i + 1)):(y($0, i)):(base):(column(i + 1)):(y($0, i) - h / 2):(y($0, i) + h / 2) \
         with boxxyerror lc rgb color(word(strategies, i)) title word(strategies, i), \
     in using (NaN):0:ytic(1) notitle
