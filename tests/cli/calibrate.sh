#!/usr/bin/env bash
# calibrate.sh — `npu-tune calibrate`: a simulator journal fitted, the target file it
# writes loaded by a script and by --target (the same figures), the same file again
# for the same input; and what it refuses in one line, writing nothing: journals of
# two targets, an output that is an input, empty, foreign and broken journals, a
# huge line, too few rows, no convergence, a figure the rows cannot pin, a bad clock
# in the sidecar. A host journal starts from the clock its run measured. A run's
# refit that ranks its rows worse than the script's figures is not taken.
# Usage: calibrate.sh NPU_TUNE
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/../lib.sh"

# script NAME TARGET SHAPES CORES: a random search of budget 40 on the simulator.
script() {
    cat >"$work/$1.lua" <<EOF
target $2
matmul { name = "p", shapes = { $3 } }
space { m = multiples(16, 256), n = multiples(16, 256), k = multiples(16, 256),
        double_buffer = { false, true }, cores = { $4 }, split = { "M", "N" } }
tune { measure = "sim", search = "random", budget = 40, results = "$1.csv", table = "$1-table.csv" }
EOF
}
script j '"ascend910"' '{256, 256, 256}, {512, 768, 768}, {200, 1000, 64}, {384, 384, 64}' 1
run 0 --quiet j.lua
script k '"ascend310"' '{256, 256, 256}' 1
run 0 --quiet k.lua

# --- the fit, and its target file ---
run 0 calibrate j.csv -o c.lua
has "fitted from" "$out" "calibrated ascend910 from 160 rows of 4 shapes in 1 journal (sim, cycles): fitted 120, held out 40"
has "intervals" "$out" "95% interval"
has "kept" "$out" "kept as they are (the rows do not pin them down): gm_bandwidth"
has "judged" "$out" "held-out rows (40):"
has "written" "$out" "wrote target ascend910-calibrated to c.lua (a script loads it with: target \"c.lua\")"
same "stderr" "$err" ""
text=$(cat "$work/c.lua")
has "file" "$text" "return {"
has "note" "$text" "-- fitted: start 64, 95% interval"
# each printed figure is the file's, to the digits printed
while read -r name start fitted rest; do
    key=${name#*.}
    group=${name%%.*}
    value=$(awk -v g="$group" -v k="$key" '
        $1 == g && $2 == "=" && $3 == "{" { in_g = 1; next }
        in_g && $1 == "}," { in_g = 0 }
        in_g && $1 == k { v = $3; sub(/,$/, "", v); print v }' "$work/c.lua")
    same "$name in the file" "$(printf '%.6g' "$value")" "$fitted"
done < <(sed -n '/^  figure/,/^$/p' "$work/.out" | sed '1d;$d' | grep -v '^  kept\| lowered to ')
# a script loads it: the run is of the calibrated target
cat >"$work/use.lua" <<'EOF'
target "c.lua"
matmul { name = "p", shapes = { {256, 256, 256} } }
tune { measure = "model", budget = 4, results = "use.csv", table = "use-table.csv" }
EOF
run 0 --quiet use.lua
has "its name in the table" "$(sed -n 2p "$work/use-table.csv")" "# target ascend910-calibrated kind=npu"
# the same figures through --target, and the table's target line
bw=$(awk '$1 == "gm_l1" { getline; v = $3; sub(/,$/, "", v); print v }' "$work/c.lua")
has "gm_l1 in the table" "$(sed -n 2p "$work/use-table.csv")" "gm_l1.bandwidth=$bw "
run 0 model --target c.lua --shape 256x256x256
# noisy IN OUT AMP [MHZ]: IN's rows sorted (a parallel run journals them in any order),
# each measurement times exp(AMP * u), u from -3 to 1 by a hash of its line: the same
# every time; with MHZ, cycles turned into seconds at that clock. The sidecar copied.
noisy() {
    awk -F, -v OFS=, -v CONVFMT=%.17g -v amp="$3" -v mhz="${4:-}" '
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "measured") c = i; if ($i == "unit") u = i } }
        NR > 1 { x = sin(NR * 4.1414) * 43758.5453; x -= int(x); $c *= exp(amp * (2 * x - 1))
                 if (mhz != "") { $c /= mhz * 1e6; $u = "s" } } 1' \
        <(head -n 1 "$work/$1"; tail -n +2 "$work/$1" | sort) >"$work/$2"
    cp "$work/$1.sig" "$work/$2.sig"
}
# the same rows with noise (a factor from 1/8 to 2): the fit follows it and ranks the
# held-out rows worse than the exact start; a warning says so and the file is written
# all the same
noisy j.csv noisy.csv 0.7
run 0 calibrate noisy.csv -o noisy.lua
has "the warning" "$err" "npu-tune: warning: calibrate: the fitted figures rank the 40 held-out rows worse than the start's (spearman "
has "written" "$out" "wrote target ascend910-calibrated to noisy.lua"
# the same input, the same file; whole shapes held out
cp "$work/c.lua" "$work/c1.lua"
run 0 calibrate j.csv -o c.lua
same_file "again" "$work/c.lua" "$work/c1.lua"
# the rows in another order (a parallel batch journals them as they
# complete), the same rows held out and the same file
{ head -n 1 "$work/j.csv"; tail -n +2 "$work/j.csv" | sort -r; } >"$work/r.csv"
run 0 calibrate r.csv -o c.lua
same "rows reordered (past the line naming the journal)" "$(tail -n +2 "$work/c.lua")" \
    "$(tail -n +2 "$work/c1.lua")"
cp "$work/c1.lua" "$work/c.lua"
run 0 calibrate j.csv --holdout-shapes --holdout 0.5 --seed 3
has "whole shapes" "$out" "held out 80 (whole shapes)"
# a tight prior holds every figure within 1% of its start
run 0 calibrate j.csv --prior 0.001
same "prior: figures at their start" "$(awk '/^  figure/ { on = 1; next } on && NF == 6 && $2 > 0 {
    r = $3 / $2; if (r < 0.99 || r > 1.01) print $1 }' <<<"$out")" ""
has "prior: figures fitted" "$out" "95% interval"
# relative: one shape measured 3 times slower throughout changes no figure; absolute, it does
awk -F, -v OFS=, -v CONVFMT=%.17g 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "measured") c = i
    if ($i == "shape") s = i } } NR > 1 && $s == "200x1000x64" { $c *= 3 } 1' "$work/j.csv" >"$work/slow.csv"
cp "$work/j.csv.sig" "$work/slow.csv.sig"
# (the figures named: which of the loosely pinned ones the fit keeps may turn on the last bit)
figures() { sed -n '/^  figure/,/^$/p' "$work/.out"; }
pinned=gm_l1.bandwidth,gm_l1.latency,l1_l0b.bandwidth,l0c_ub.bandwidth,ub_gm.bandwidth,ub_gm.latency
run 0 calibrate j.csv --relative --fit $pinned
has "relative: said" "$out" "fitted 120 relative to each shape's level, held out 40"
has "relative: rms" "$out" "weighted rms of log(estimate/measured) less its shape's mean on the fitted rows"
fig=$(figures)
run 0 calibrate slow.csv --relative --fit $pinned
same "relative: a shape's level changes no figure" "$(figures)" "$fig"
run 0 calibrate j.csv --fit $pinned
fig=$(figures)
# (absolute, the level moves the figures, or drives one off: then the fit fails)
"$bin" calibrate "$work/slow.csv" --fit $pinned >"$work/.out" 2>/dev/null
if [ "$(figures)" != "$fig" ]; then ok; else bad "absolute: a shape's level moves the figures"; fi
# from the calibrated target: its signature is not the journal's, so only by --target
run 0 calibrate j.csv --target c.lua --name again -o d.lua
has "named" "$out" "wrote target again to d.lua"

# --- tune { calibrate }: off on the simulator unless asked; asked, the search ranks by
# the model refitted to the run's rows, recorded beside the journal ---
absent "sim: no fit record by default" "$work/j.csv.fit"
cat >"$work/cal.lua" <<'EOF'
target "ascend910"
matmul { name = "p", shapes = { {256, 256, 256}, {200, 1000, 64}, {384, 384, 64} } }
space { m = multiples(16, 128), n = multiples(16, 128), k = multiples(16, 128),
        double_buffer = { false, true }, cores = { 1, 2, 4, 8, 16, 32 }, split = { "M", "N", "MN" } }
tune { measure = "sim", budget = 32, calibrate = true, results = "cal.csv", table = "cal-table.csv" }
EOF
run 0 --quiet cal.lua
has "calibrate: said" "$out" "calibrate: the search ranked by the model refitted"
has "calibrate: recorded" "$(head -n 1 "$work/cal.csv.fit")" "# npu-tune fit record 1 target_sig="
has "calibrate: a fit" "$(sed -n 2p "$work/cal.csv.fit")" " ascend910 kind=npu cores=32 "
# a journal written through has no record beside it, and calibrates all the same
sed 's|results = "cal.csv"|results = "/dev/null"|' "$work/cal.lua" >"$work/null.lua"
run 0 --quiet null.lua
has "calibrate through /dev/null" "$out" "calibrate: the search ranked by the model refitted"
# a record that is another file: refused before anything runs
sed 's|table = "cal-table.csv"|table = "cal.csv.fit"|' "$work/cal.lua" >"$work/clash.lua"
run 1 --quiet clash.lua
has "record is the table" "$err" "cal.csv.fit"
# a fit that ranks the rows worse than the script's figures is not taken: a board whose
# times are the simulator's, one shape's a hundred times over (a level of its own, which
# the figures can only meet by reordering the configs)
cat >"$work/lv.lua" <<EOF
target "ascend910"
matmul { name = "p", shapes = { {256, 256, 256}, {200, 1000, 64}, {384, 384, 64},
                                {512, 128, 256}, {96, 640, 128}, {320, 320, 320} } }
space { m = multiples(16, 128), n = multiples(16, 128), k = multiples(16, 128),
        double_buffer = { false, true } }
tune { measure = { command = "c=\$('$bin' sim {kernel} --format csv | tail -n 1 | cut -d, -f1); case {shape} in 200x1000x64) c=\$((c * LEVEL));; esac; echo \$c cycles" },
       verify = false, final = false, budget = 32, calibrate = true, results = "lv.csv" }
EOF
sed 's/LEVEL/100/' "$work/lv.lua" >"$work/lv100.lua"
run 0 --quiet lv100.lua
has "calibrate: a fit not taken" "$out" "refitted 0 times to the run's measurements (1 more fit ranked them worse than the script's figures and was not taken)"
run 0 gen --target ascend910 --shape 256x256x256 --strategy OS --tile 64x64x64
same "calibrate: the script's figures recorded" "$(sed -n 2p "$work/lv.csv.fit" | cut -d' ' -f3-)" \
    "$(printf '%s\n' "$out" | sed -n 's/^target //p')"
run 0 --quiet lv100.lua
has "calibrate: resumed alike" "$out" "refitted 0 times to the run's measurements (1 more fit"
rm -rf "$work"/lv.csv*
# the same rows at one level: fits are taken
sed 's/LEVEL/1/' "$work/lv.lua" >"$work/lv1.lua"
run 0 --quiet lv1.lua
has "calibrate: fits taken" "$out" "refitted 2 times to the run's measurements"

# --- a host journal: the start is the clock the run measured (its sidecar has it), not
# one measured again, so that the same journal gives the same file ---
cat >"$work/h.lua" <<'EOF'
target "host"
matmul { name = "h", shapes = { {128, 128, 128}, {200, 96, 64}, {64, 256, 96}, {300, 40, 70} } }
tune { measure = "model", search = "random", budget = 40, results = "h.csv", table = "h-table.csv" }
EOF
run 0 --quiet h.lua
clock=$(sed -n 's/^clock_mhz=//p' "$work/h.csv.sig")
same "host: the run's clock in the sidecar" "$(awk -v c="$clock" 'BEGIN { print (c + 0 > 0) }')" 1
# the model's own estimates: the start is the minimum, where the fit ends at once
run 0 calibrate h.csv
has "host: the model's rows" "$out" "of log(estimate/measured) on the fitted rows: 0.0000 before, 0.0000 after"
# the model's cycles as timings in seconds, with noise for the fit to move on
noisy h.csv hs.csv 0.1 "$clock"
start_clock() { awk '$1 == "clock_mhz" { print $2 }' <<<"$out"; }
run 0 calibrate hs.csv -o h1.lua
same "host: the start clock is the run's" "$(start_clock)" "$(printf '%.6g' "$clock")"
run 0 calibrate hs.csv -o h2.lua
same_file "host: the same file again" "$work/h2.lua" "$work/h1.lua"
sed -i 's/^clock_mhz=.*/clock_mhz=2500/' "$work/hs.csv.sig"
run 0 calibrate hs.csv
same "host: the sidecar's clock" "$(start_clock)" 2500
# a sidecar written before it had the clock: the clock measured now
sed -i '/^clock_mhz=/d' "$work/hs.csv.sig"
run 0 calibrate hs.csv
has "host: no clock in the sidecar" "$out" "calibrated host from 160 rows"
same "host: a clock measured now" "$(awk -v c="$(start_clock)" 'BEGIN { print (c + 0 > 0) }')" 1

# --- orders: timings of a CPU whose L3 is slower than the start's memory: L3 fitted,
# memory lowered with it, printed and noted in the file; kept off the kept line ---
cat >"$work/slow.lua" <<'EOF'
return { name = "box", kind = "cpu", cores = 2, clock_mhz = 3000, simd_floats = 8, vregs = 16,
  fma_units = 2, load_ports = 2, l1 = 32768, l2 = 524288, l3 = 33554432,
  bandwidth = { l2 = 64, l3 = 4, mem = 16, mem_shared = 24 } }
EOF
sed 's/l3 = 4,/l3 = 32,/' "$work/slow.lua" >"$work/fast.lua"
cat >"$work/o.lua" <<'EOF'
target "slow.lua"
matmul { name = "o", shapes = { {512, 512, 512}, {640, 384, 768}, {768, 768, 256} } }
tune { measure = "model", search = "random", budget = 40, results = "o.csv", table = "o-table.csv" }
EOF
run 0 --quiet o.lua
run 0 calibrate o.csv --target fast.lua --fit bandwidth.l3 -o o-fit.lua
has "orders: lowered" "$out" "  bandwidth.mem lowered to 4: no faster than the fitted bandwidth.l3"
has "orders: the note" "$(cat "$work/o-fit.lua")" "-- lowered from 16: no faster than bandwidth.l3"
run 0 calibrate o.csv --target fast.lua
has "orders: lowered, not kept" "$out" "  bandwidth.mem lowered to 4: no faster than the fitted bandwidth.l3"
same "orders: the kept line" "$(grep -cE 'kept as they are.*bandwidth\.mem(,|$)' <<<"$out")" 0

# --- refused, in one line, nothing written ---
refused() { # CODE WHAT PATTERN ARGS...: exit CODE, one line holding PATTERN, no out.lua
    local code=$1 what=$2 pattern=$3
    shift 3
    run "$code" calibrate "$@"
    has "$what" "$err" "$pattern"
    same "$what: one line" "$(printf '%s\n' "$err" | wc -l)" 1
    absent "$what: no output" "$work/out.lua"
}
refused 1 "two targets" "npu-tune: calibrate: j.csv is of target ascend910 measured with sim in cycles, k.csv of target ascend310 with sim in cycles: calibrate the journals of one target and backend together" j.csv k.csv -o out.lua
refused 1 "output is the target" "is the target" j.csv --target c.lua -o c.lua
refused 2 "not a .lua" "-o must name a target file ending in .lua" j.csv -o out.txt
refused 2 "no journal" "a JOURNAL.csv is required" -o out.lua
refused 2 "holdout 1" "--holdout '1' must be a share from 0 to below 1" j.csv --holdout 1 -o out.lua
refused 2 "holdout nan" "--holdout 'nan' must be a share" j.csv --holdout nan -o out.lua
refused 2 "shapes of none" "--holdout-shapes needs a share above 0" j.csv --holdout-shapes --holdout 0 -o out.lua
refused 2 "prior -1" "--prior '-1' must be an sd from 0 to 100" j.csv --prior -1 -o out.lua
refused 2 "prior inf" "--prior 'inf' must be an sd from 0 to 100" j.csv --prior inf -o out.lua
refused 2 "iterations 0" "--iterations '0' must be an integer from 1 to 100000" j.csv --iterations 0 -o out.lua
refused 2 "seed -1" "--seed '-1' must be a non-negative integer" j.csv --seed -1 -o out.lua
refused 2 "bad name" "--name must be 1 to 40 characters" j.csv --name 'a b' -o out.lua
refused 1 "missing" "npu-tune: calibrate: cannot open 'none.csv': No such file or directory" none.csv -o out.lua
: >"$work/empty.csv"
refused 1 "empty" "empty.csv: empty file, not an npu-tune journal" empty.csv -o out.lua
printf 'a,b\n1,2\n' >"$work/other.csv"
refused 1 "not a journal" "other.csv:1: columns are not the npu-tune journal's" other.csv -o out.lua
head -n 1 "$work/j.csv" >"$work/header.csv"
refused 1 "no rows" "no measurements in header.csv" header.csv -o out.lua
# measurements that are not positive numbers: the line named
for bad in nan -5 0 1e999; do
    awk -F, -v OFS=, -v b="$bad" 'NR == 3 { $19 = b } { print }' "$work/j.csv" >"$work/bad.csv"
    refused 1 "measured $bad" "bad.csv:3: field 'measured'" bad.csv -o out.lua
done
# a huge line: refused by line, not read into a fit
{ cat "$work/header.csv"; head -c 20000000 /dev/zero | tr '\0' 'x'; echo; } >"$work/huge.csv"
refused 1 "huge line" "huge.csv:2:" huge.csv -o out.lua
# too few rows, no convergence, a figure no row depends on
head -n 6 "$work/j.csv" >"$work/few.csv"
refused 1 "too few" "rows are too few to fit" few.csv -o out.lua
refused 1 "not converged" "did not converge within its iterations" j.csv --iterations 1 -o out.lua
refused 1 "not identifiable" "gm_bandwidth is not identifiable from these rows (no row depends on it): fit without it" j.csv --fit gm_l1.bandwidth,gm_bandwidth -o out.lua
refused 1 "not a figure" "'cores' is not a figure the fit can move on npu target ascend910 with rows in cycles" j.csv --fit cores -o out.lua
# another target's figures under the journal's name
cp "$work/j.csv" "$work/sig.csv"
sed 's/^target_sig=.*/target_sig=0123456789abcdef/' "$work/j.csv.sig" >"$work/sig.csv.sig"
refused 1 "signature" "sig.csv was measured on target ascend910 signed 0123456789abcdef, the target ascend910 here is signed" sig.csv -o out.lua
run 0 calibrate sig.csv --target ascend910
cp "$work/h.csv" "$work/clock.csv"
for bad in fast 0 1e9 -5; do
    sed "s/^clock_mhz=.*/clock_mhz=$bad/" "$work/h.csv.sig" >"$work/clock.csv.sig"
    refused 1 "sidecar clock $bad" "clock.csv.sig: clock_mhz '$bad' is not a clock in MHz (1 to 100000)" clock.csv -o out.lua
done
# a derived target has no built-in figures: --target
script m '{ base = "ascend910", l1 = 512 * KiB }' '{256, 256, 256}, {384, 384, 64}' 1
run 0 --quiet m.lua
refused 1 "derived" "m.csv was measured on target ascend910-custom: unknown target 'ascend910-custom'" m.csv -o out.lua
has "derived: the way out" "$err" "give its figures with --target FILE.lua"

finish
