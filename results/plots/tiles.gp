# tiles.gp — one shape's measured time over the tile plane (m x n) for its best
# strategy, the best over k and the other settings at each point; a heat map
# rendered by `npu-tune plot`.
# Variables (gnuplot -e): in = data file, out = image, term = 'png' or 'svg',
# unit = 'cycles' or 's', label = 'problem MxNxK', strategy = 'OS',
# dm, dn = box size (grid step of m and n), bestm, bestn = the best tile,
# logcb = how the colour bar is drawn: 0 linear (the values span less than a
# decade), 1 log with numbers at 1, 2 and 5 times the powers of ten, 2 log with
# numbers at the powers of ten.
# Data columns: m n measured k double_buffer cores split
# Restyle: copy this directory, edit, and run with NPU_TUNE_PLOTS=that/dir.

if (!exists("term")) term = 'png'
if (!exists("unit")) unit = 'cycles'
if (!exists("logcb")) logcb = 0
if (!exists("dm")) dm = 16
if (!exists("dn")) dn = 16
if (!exists("label")) label = in
if (!exists("strategy")) strategy = 'best strategy'
if (term eq 'svg') {
    set terminal svg size 850,700 dynamic font 'Sans,12' background '#ffffff'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 850,700 font 'Sans,11' background '#ffffff'
    } else {
        set terminal png size 850,700 background '#ffffff'
    }
}
set termoption noenhanced
set output out

set title sprintf("%s, %s: measured over the tile plane\n(best over k and settings at each m x n; circle = best)", label, strategy)
set xlabel 'm (tile rows)'
set ylabel 'n (tile columns)'
set cblabel sprintf('measured (%s)', unit)
set palette defined (0 '#440154', 1 '#3b528b', 2 '#21908d', 3 '#5dc963', 4 '#fde725')
set format cb '%g'
if (logcb) {
    set logscale cb
    if (logcb == 1) { do for [e = -15:15] { set cbtics add (2 * 10.0**e, 5 * 10.0**e) } }
}
set autoscale cbfix
set grid xtics ytics lc rgb '#cccccc' front
set key off
set size ratio -1
set offsets dm / 2.0, dm / 2.0, dn / 2.0, dn / 2.0
if (exists("bestm") && exists("bestn")) {
    set label 1 '' at bestm, bestn point pt 6 ps 2.5 lw 2 lc rgb '#e41a1c' front
}

plot in using 1:2:(dm / 2.0):(dn / 2.0):3 with boxxyerror fs solid 1.0 noborder lc palette
