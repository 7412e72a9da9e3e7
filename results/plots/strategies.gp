# strategies.gp — best measured time per strategy for every shape, as grouped
# bars (the strategy comparison figure); rendered by `npu-tune plot`.
# Variables (gnuplot -e): in = data file, out = image, term = 'png' or 'svg',
# unit = 'cycles' or 's', strategies = 'IS WS OS' (the columns after the
# label, in order), nshapes = rows, logy = 1 when the values span a wide range.
# Data: one row per shape, "label" then the best value per strategy ('-' = none).
# Restyle: copy this directory, edit, and run with NPU_TUNE_PLOTS=that/dir.

if (!exists("term")) term = 'png'
if (!exists("unit")) unit = 'cycles'
if (!exists("logy")) logy = 0
if (!exists("strategies")) strategies = 'IS WS OS'
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

set title 'Best measured per strategy and shape (lower is better)'
set ylabel sprintf('best measured (%s)', unit)
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.9
set grid ytics lc rgb '#dddddd'
set key top left Left reverse box opaque width 1
set xtics rotate by 20 right nomirror
set bmargin 6
set format y '%.0s%c'
if (exists("nshapes")) { set xrange [-0.6 : nshapes - 0.4] }
if (logy) {
    set logscale y
} else {
    set yrange [0:*]
}

plot for [i=1:words(strategies)] in using (column(i + 1)):xtic(1) \
         title word(strategies, i) lc rgb color(word(strategies, i))
