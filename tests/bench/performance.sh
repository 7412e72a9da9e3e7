#!/usr/bin/env bash
# performance.sh — runs the benchmarks (ctest label "bench") one at a time and writes
# docs/performance.md from their output: the machine, then per bench its command and output.
# Usage: tests/bench/performance.sh [-b BUILD_DIR] [-o FILE] [BENCH...]
#   BUILD_DIR  a configured and built tree (default: build, as setup.sh makes it)
#   FILE       where the page goes (default: docs/performance.md of this checkout)
#   BENCH      run only these (the others keep their section of FILE, else are listed
#              as not run); default: all
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=build
out=$src/docs/performance.md
while getopts "b:o:h" opt; do
    case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '3,8s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
cd "$src"
if [ ! -f "$build/CTestTestfile.cmake" ]; then
    echo "performance.sh: '$build' is not a build tree (run ./setup.sh first)" >&2
    exit 1
fi

# The page's order of the benches and what each measures; ctest's other benches
# (label bench) follow them.
order=(bench.enumerate bench.npu_speed sim.kernels_speed bench.rank bench.search
       bench.search_cores bench.cpu_ukr bench.cpu_dtypes bench.cpu_footprint bench.cpu_model
       bench.cpu_calibration bench.cpu_kernel bench.calibrate bench.mpi bench.blas)
declare -A about=(
[bench.enumerate]="How fast the legal space is enumerated and ranked by the model: the widened
space of examples/bert.lua (every strategy; m, n, k every multiple of 16 up to the dimension;
double buffering off and on; 1, 2, 4, 8, 16 and 32 cores; splits M, N and MN) on ascend910.
The figure is legal candidates per second, the median of 15 repetitions at 1 and at 2
threads, measured one after the other in one run."
[bench.npu_speed]="The simulator's speed in simulated instructions per second, in timing mode and in
functional mode (which moves the data and checks the result): the OS 256x256x128 kernel of
512x768x768, the fastest config of that shape (medians of 21 repetitions in timing mode, 5 in functional mode) and the
longest kernel of the BERT shapes, OS 16x16x16 double-buffered on 512x3072x768 (5 and 1)."
[sim.kernels_speed]="Timing mode on a double-buffered OS kernel of about 480000 instructions (the best of 7
runs); the test fails below 2e7 instructions per second in an optimised build."
[bench.rank]="How well the model ranks what the simulator measures: every legal config of the
three BERT shapes (ascend910, fp16, double buffering off and on, 1 core) generated and
simulated. spearman is the rank correlation of estimated and simulated cycles over the whole
space, top100 the same among the 100 configs the simulator finds fastest, regret how much
slower the model's first pick simulates than the best config (0%: the same)."
[bench.search]="Every search strategy against the exhaustive optimum: 22 shapes (BERT-like and odd
sizes with tails; fp16, double buffering off and on, 1 core) are simulated in full once, then
each strategy replays them with a budget of 1% of the legal space (at least 8) and seeds 1 to
3. within_1% counts the runs whose best is within 1% of the optimum; median_meas_to_1% is the
median over the runs of the measurements a run takes to get there (-: most runs never do)."
[bench.search_cores]="The model search on a multi-core space: tests/bench/search_cores.lua simulates
every legal config of 13 shapes (BERT-like and odd sizes with tails; fp16; IS, WS, OS; m, n,
k from a coarse list; double buffering off and on; 1 to 32 cores; splits M, N and MN) once,
into a journal in the build tree that later runs resume (68385 configs, about an hour the
first time on a shared 2-core machine; a rerun simulates nothing; delete
build/tests/search-cores to simulate afresh), then bench_search_cores estimates every
config with this build's model and replays the model search with a budget of 1% of the
legal space. within: the search's best is within 1% of the optimum (search_gap) and the
model's first pick is (pick_gap); pick_then is the pick of the estimates in the journal,
the model that simulated it. Below, estimate / simulated cycles per core count (median
bias and its 10th and 90th percentiles), then and now."
[bench.cpu_ukr]="The ceiling of the generated host micro-kernels: each register tile alone, with its
operands in L1 and with its B panels streaming from L2, against the roofline's FMA peak of
one core."
[bench.cpu_dtypes]="What 16-bit storage costs: the same generated kernel with A and B in fp32, bf16
and fp16 (C and every sum fp32), checked against the exact result, then timed side by side
in round-robin rounds on the BERT shapes at 1 and 2 threads. The ratios are medians of the
per-round ratios to fp32, with the rounds in which the 16-bit kernel was ahead."
[bench.cpu_footprint]="What the memory a GEMM's operands take costs: a pointer chase shows how far
the caches reach, then one generated kernel runs the call's flops three ways side by side
(the call; its k blocks as separate calls on their own slices; the same calls all on the
first slices, which stay cached)."
[bench.cpu_model]="How well the host model ranks real measurements: tests/bench/host_sample.lua
measures a uniform random sample of the one-thread space (60 configs per shape; its target
sets L2 to 2 MiB, so that blocks filling a 1 MiB L2 are sampled too), then every measured
row is estimated again. spearman_then is the rank correlation of the measurements with the
estimates in the journal (the sample's target), spearman_now with this build's model on the
detected target; pick_*_% is how much slower the model's first pick measured than the
sample's fastest; db1/db0 compares measured/estimated of double-buffered rows with the
others'; the bins show measured/estimated by the packed B block's share of L2."
[bench.cpu_calibration]="The host model calibrated on some shapes and judged on others:
tests/bench/host_calibration.sh measures 150 uniformly random legal one-thread configs of
each of three shapes (BERT 512x768x768, ResNet-50's im2col 3136x64x576, odd 300x500x700)
in a tuner run and fits the model's figures to them with npu-tune calibrate. Of six other
shapes (BERT's FFN, ResNet's im2col at 28x28, small, odd sizes with tails) it draws 150
such configs each (the same random search with the model backend: nothing timed) and
bench_host_anchor times them side by side with an anchor, the config of median estimate
of the shape: in groups of 14 beside two copies of the anchor (first and halfway in each
round's order, which turns by one each round), interleaved bursts (at least 3 calls and
20 ms), 7 rounds, a config's figure the median over the rounds of its time over the
anchor's in the same round (the geometric mean of the copies'), so the machine's drift
between groups and between rounds cancels (a group with timings on a busy machine, or
whose anchor's time is more than 10% off its median over the groups, is timed again: 3
tries). rho is the Spearman correlation of estimate and that figure over a shape's sample,
pick how much slower the model's first pick measured than the sample's best, with the
default figures and the fitted ones. The two largest shapes and 200x1000x64 (the one
the model ranks worse for another reason than noise) are timed again the same way after
the searches, config for config: the Spearman of the two measurements, its square root the
ceiling of any model (what one that knew every config's true time would score against one
measurement: Spearman's correction for attenuation), noise a config's change between the
runs beyond the drift, drift the anchor's. Then
model searches of 48 measurements on three of the shapes, in three rounds that each run
three searches back to back: with the default figures and no refit (the search before
calibration), refitting during the run (tune { calibrate = true }), and with the fitted
figures. Every config any search measured is then timed again beside an anchor, as the
sample is, and those figures judge the searches (runs minutes apart cannot be compared by
their own times: the machine drifts more than 2% between them): each cell is the
measurements, in the order the run made them, until one within 2% of the run's own best /
of the best any search measured, of the measurements made, and the run's best over that
best, medians of the rounds; the goal is half the measurements of the search before
calibration."
[bench.mpi]="npu-tune under mpirun on this one machine (tests/bench/mpi_bench.sh; builds with MPI).
The coordinator's ceiling: bench_coordinator hands out the candidates of a large space to
2 workers that answer with the model backend (a microsecond: a no-op measurement) while
rank 0 journals every result, all at once and 8 at a time as a search asks; results per
second and the bytes rank 0 sends and receives per candidate. Then every legal config of
a BERT shape on 1, 2 and 4 cores, simulated, as 1 rank x 2 threads and as mpirun -n 3 (2
worker ranks x 1 thread; rank 0 only coordinates), in alternating rounds; and the host's
cost per candidate. The projection to 16, 256 and 4096 nodes is computed from these
figures, not measured. All ranks share the machine's 2 cores with other work, so the
figures are noisy."
[bench.cpu_kernel]="The tuned host kernels against OpenBLAS: tests/bench/host_bench.sh tunes the
BERT shapes and 1024x1024x1024 at 1 thread and at 2 (tests/bench/host_bench.lua), then times
side by side, round-robin in one run, the tuned kernels, OpenBLAS cblas_sgemm with its
default core type and every OPENBLAS_CORETYPE this CPU runs, and the FMA loop for each
GEMM's flops. Ratios are medians of per-round ratios."
[bench.calibrate]="npu-tune calibrate on a journal of 10^4 rows (20 shapes, 500 configs each drawn
uniformly from a multi-core space of ascend910), measured as the model's estimate at
perturbed figures times 3% lognormal noise: the wall time of the command against its goal
(under 10 s), each fitted figure with its 95% interval against the figures the rows were
made from, and the model's accuracy on the 2500 held-out rows before and after."
[bench.blas]="The library of \`npu-tune lib\` against OpenBLAS, BLIS and libxsmm through \`cblas_sgemm\`:
tests/bench/bench_blas.sh tunes the shapes of tests/bench/blas_bench.lua on this host
(budget \`NPU_TUNE_BUDGET\`, default 12; at one thread, and at one or two threads per
shape), builds a library from each table, then bench_blas times each library on each shape
in a process of its own (a driver that loads it: a shape timed after others would find its
operands placed otherwise), the libraries in turn in each round, each a burst whose median
sample is the round's (a sample: one call, or for a call under 20 us the mean of as many
consecutive calls as take 20 us, since the clock steps by 10 ns here). OpenBLAS runs with
the core type fastest here (tried first), BLIS with BLIS_ARCH_TYPE=skx on AVX-512 CPUs (else
Debian's BLIS takes generic kernels there) and its own choice elsewhere, libxsmm's JIT
kernels (one thread) on the small shapes. At 1 and 2 threads, with OMP_WAIT_POLICY unset and
passive; at one thread every process runs on the first CPU the bench may use (this VM's two
CPUs differ by 3-8% for every library, and a process the scheduler put on either would add
that to the ratios); \"vs faster peer\" is the median of the per-round ratios of the faster
peer's time to the library's (above 1: the library is faster). Last, the dispatcher's cost:
nt_sgemm against the kernel of its 64x64x64 entry called directly (its loop for that shape),
both in one process, a burst each in turn."
)
# What a bench needs besides the build: a function that prints what is missing, or nothing.
# Whether the loader knows library $1 (the cache read whole first: under pipefail, a
# `grep -q` that stops early fails the pipe when ldconfig gets SIGPIPE).
known() {
    local cache
    cache=$(ldconfig -p 2>/dev/null) || true
    grep -q "$1" <<<"$cache"
}
openblas() {
    known 'libopenblas\.so' ||
        echo "OpenBLAS (apt-get install libopenblas-dev; it is loaded at run time, not linked)"
}
# OpenBLAS and BLIS, both loaded at run time.
peers() {
    local o
    o=$(openblas)
    known 'libblis\.so\.4' || o="${o:+$o; }BLIS (apt-get install libblis-dev)"
    echo "$o"
}
declare -A needs=([bench.cpu_kernel]=openblas [bench.blas]=peers)

mapfile -t registered < <(ctest --test-dir "$build" -N -L bench | sed -n 's/^ *Test *#[0-9]*: //p')
names=()
for n in "${order[@]}" "${registered[@]}"; do
    [[ " ${registered[*]} " == *" $n "* && " ${names[*]} " != *" $n "* ]] && names+=("$n")
done
for want in "$@"; do
    [[ " ${names[*]} " == *" $want "* ]] ||
        { echo "performance.sh: no bench '$want' in $build (benches: ${names[*]})" >&2; exit 2; }
done
# Whether bench $1 is among the ones asked for ($2...; none: all).
selected() {
    local n=$1
    shift
    [ $# -eq 0 ] && return 0
    for w in "$@"; do [ "$w" = "$n" ] && return 0; done
    return 1
}

# The machine.
field() { lscpu | sed -n "s/^$1: *//p" | head -1; }
isa=sse
grep -qw avx2 /proc/cpuinfo && isa=AVX2
grep -qw avx512f /proc/cpuinfo && isa=AVX-512
virt=$(field "Hypervisor vendor")
[ -z "$virt" ] && grep -qw hypervisor /proc/cpuinfo && virt="the CPU flags say so"
# The caches as lscpu gives them, else as the C library does (getconf), where lscpu
# finds no cache information (some virtual machines).
caches() {
    if [ -n "$(field "L1d cache")" ]; then
        echo "L1d $(field "L1d cache"), L2 $(field "L2 cache"), L3 $(field "L3 cache") (lscpu)"
        return
    fi
    local out="" level name bytes
    for level in LEVEL1_DCACHE:L1d LEVEL2_CACHE:L2 LEVEL3_CACHE:L3; do
        name=${level#*:}
        bytes=$(getconf "${level%:*}_SIZE" 2>/dev/null || true)
        case $bytes in '' | 0 | -*) continue ;; esac
        out="$out${out:+, }$name $(awk -v b="$bytes" 'BEGIN { if (b >= 1048576) printf "%g MiB", b / 1048576; else printf "%g KiB", b / 1024 }')"
    done
    echo "${out:-unknown} (getconf)"
}
commit=$(git -C "$src" describe --always --dirty 2>/dev/null || echo "not a git checkout")
version=$("$build/tuner/npu-tune" --version)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
page=$tmp/page.md

# Lines of a test's output from `ctest -V`: the "N: " prefix removed, ctest's own
# lines dropped, paths relative to the checkout.
test_output() {
    sed -n 's/^[0-9][0-9]*: //p' "$1" |
        grep -v -e '^Test command: ' -e '^Working Directory: ' -e '^Test timeout computed to be: ' \
             -e '^Environment variables: ' | sed -e "s|$src/||g" -e "s|$src\\b|.|g" || true
}

# CPU seconds the machine spent busy (user, nice, system, irq, softirq) since boot.
busy_seconds() {
    awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat
}

# CPU seconds this shell's finished children have used (times runs in this shell: in a
# command substitution it would report the subshell's).
children_seconds() {
    times > "$tmp/times"
    tail -1 "$tmp/times" | awk '{ s = 0; for (i = 1; i <= NF; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } print s }'
}

# Output as Markdown: lines starting with '|' (tables) as they are, the rest fenced.
as_markdown() {
    awk 'BEGIN { fenced = 0 }
         /^\|/ { if (fenced) { print "```"; fenced = 0 } print; next }
         { if (!fenced) { print "```"; fenced = 1 } print }
         END { if (fenced) print "```" }'
}

{
    echo "<!-- Written by tests/bench/performance.sh from the benchmarks' output; do not edit. -->"
    echo "# Performance"
    echo
    echo "One run of the benchmarks of \`tests/bench/\` (ctest label \`bench\`), one at a time, on"
    echo "the machine below. \`tests/bench/performance.sh\` ran them and wrote this page; run it again"
    echo "to measure your own machine (\`./setup.sh && tests/bench/performance.sh\`). Each section"
    echo "gives the command, its wall time, how much of the machine's CPU time other processes took"
    echo "while it ran (the machine may be shared, and the host benches time real kernels: a kernel"
    echo "on 2 threads waits for a busy core at every join), and the output."
    echo
    echo "## The machine"
    echo
    echo "- CPU: $(field "Model name") (family $(field "CPU family"), model $(field "Model")), $(nproc) cores online ($(field "Thread(s) per core") thread(s) per core), $isa"
    echo "- caches: $(caches)"
    echo "- ${virt:+virtual machine ($virt), }Linux $(uname -r), $(grep -m1 MemTotal /proc/meminfo | awk '{printf "%.0f GiB", $2 / 1048576}') of memory"
    echo "- compiler: $(cc --version | head -1)"
    echo "- $version, commit $commit, build \`$build\` ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt"))"
} > "$page"

# The run of bench $1 on the page being replaced: its section from its command
# line (or its "Not run on this machine") on; nothing if it has none. A run the
# page being replaced kept from a machine other than its own says which; one made
# on that page's machine, where that is not this one, gets that line here.
previous_section() {
    awk -v h="## $1" '$0 == h { on = 1; next } on && /^## / { exit } on' "$out" |
        sed -n '/^\(`ctest \|Not run on \)/,$p' |
        awk -v m="$old_machine" '{ line[NR] = $0 }
             END { for (i = 1; i <= NR; i++) {
                       print line[i]
                       if (i == 1 && m != "" && line[1] ~ /^`ctest / && line[3] !~ /^Measured on /)
                           print "\nMeasured on another machine: " m } }'
}

# The machine of the page being replaced where it is not this one ("" where it is):
# its CPU and caches lines.
old_machine=""
if [ -f "$out" ]; then
    was=$(sed -n 's/^- \(CPU\|caches\): //p' "$out" | paste -sd';' | sed 's/;/; caches /')
    now=$(sed -n 's/^- \(CPU\|caches\): //p' "$page" | paste -sd';' | sed 's/;/; caches /')
    [ "$was" = "$now" ] || old_machine="CPU $was."
fi

total=0 failed=0
for name in "${names[@]}"; do
    {
        echo
        echo "## $name"
        echo
        echo "${about[$name]:-(performance.sh has no description of this bench yet.)}"
        echo
    } >> "$page"
    re="^${name//./\\.}\$" # the test's name, its dot escaped
    cmd="ctest --test-dir $build -L bench -R '$re' -V"
    why=""
    [ -n "${needs[$name]+x}" ] && why=$(${needs[$name]})
    if ! selected "$name" "$@"; then
        kept=""
        [ -f "$out" ] && kept=$(previous_section "$name")
        if [ -n "$kept" ]; then
            printf 'Not run this time (`%s` runs it); the page'"'"'s previous run:\n\n%s\n' \
                "$cmd" "$kept" >> "$page"
        else
            echo "Not run this time (\`$cmd\` runs it)." >> "$page"
        fi
        continue
    fi
    if [ -n "$why" ]; then
        echo "Not run on this machine: needs $why. \`$cmd\` runs it." >> "$page"
        continue
    fi
    echo "performance.sh: $name" >&2
    log=$tmp/$name.log
    rc=0
    children_seconds > "$tmp/ours0"
    busy0=$(busy_seconds) wall0=$(date +%s.%N)
    ctest --test-dir "$build" -L bench -R "$re" -V > "$log" 2>&1 || rc=$?
    busy1=$(busy_seconds) wall1=$(date +%s.%N)
    children_seconds > "$tmp/ours1"
    others=$(awk -v b0="$busy0" -v b1="$busy1" -v o0="$(cat "$tmp/ours0")" -v o1="$(cat "$tmp/ours1")" \
                 -v w0="$wall0" -v w1="$wall1" -v n="$(nproc)" \
                 'BEGIN { s = ((b1 - b0) - (o1 - o0)) / ((w1 - w0) * n); printf "%.0f", 100 * (s > 0 ? s : 0) }')
    secs=$(grep -E "Test +#[0-9]+: $name " "$log" | sed -E 's/.* ([0-9.]+) sec.*/\1/' | tail -1)
    ran=$(sed -n 's/^[0-9][0-9]*: Test command: //p' "$log" | head -1 | sed -e "s|$src/||g" -e "s|$src\\b|.|g")
    if [ -z "$ran" ]; then
        echo "performance.sh: ctest ran no test '$name' in $build" >&2
        exit 1
    fi
    [ "$rc" -eq 0 ] || failed=1
    total=$(awk -v a="$total" -v b="${secs:-0}" 'BEGIN { print a + b }')
    {
        echo "\`$cmd\` (runs \`$ran\`): ${secs:-?} s; other processes took $others% of the machine's CPU time meanwhile."
        [ "$rc" -eq 0 ] || echo "**It failed** (ctest's exit status $rc); its output:"
        echo
        test_output "$log" | as_markdown
    } >> "$page"
done
echo "performance.sh: the benches took $total s" >&2
mv "$page" "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
exit "$failed"
