#!/bin/sh
# board.sh — a stand-in board for the "command" backend's tests: runs a kernel
# file one way or another (MODE) and prints a time, or fails as asked.
# Usage: board.sh MODE KERNEL [PIDFILE | OUTPUT [PATTERN]]
#   sim       npu-tune sim KERNEL --format csv (binary: $NPU_TUNE_BIN); prints "N cycles";
#             with OUTPUT also --check --output OUTPUT: C of the simulator's functional
#             inputs, which are what {inputs} holds (so this board need not read it)
#   cheat     as sim, but a kernel whose config line starts with PATTERN loses its mmad
#             instructions first: fewer cycles, and a wrong C in OUTPUT
#   noc       prints a time, writes no C
#   shortc    prints a time, writes 10 bytes of C
#   bytes     prints the kernel's size as microseconds, after a line of chatter
#   cycles    prints the kernel's size as "N cycles"
#   fail      a message on stderr, exit 1
#   garbage   prints no number
#   hang      writes its pid and a background child's to PIDFILE, sleeps
#   leftover  prints a time, leaves a child (pid in PIDFILE) holding stdout
#   rounds    prints 10 cycles times the kernel's run count (kept per config line in the
#             directory PIDFILE names, where DIR/log gets each run's config line); from
#             its second run on, a kernel whose config line starts with "config PATTERN" fails
mode=$1
kernel=$2
[ -r "$kernel" ] || { echo "board: cannot read kernel '$kernel'" >&2; exit 2; }
size=$(wc -c < "$kernel" | tr -d ' ')

# npu-tune sim on file $1 (C to $2 when given, checked when $3 is --check): "N cycles"
simulate() {
    if [ -n "$2" ]; then
        "$NPU_TUNE_BIN" sim "$1" --format csv $3 --output "$2"
    else
        "$NPU_TUNE_BIN" sim "$1" --format csv
    fi | awk -F, 'NR == 2 { print $1 " cycles" }'
}

case $mode in
sim)
    simulate "$kernel" "$3" --check
    ;;
cheat)
    if grep -q "^config $4" "$kernel"; then
        grep -v ' mmad ' "$kernel" > "$kernel.cheat"
        simulate "$kernel.cheat" "$3"
        rm -f "$kernel.cheat"
    else
        simulate "$kernel" "$3" --check
    fi
    ;;
noc)
    echo "12 cycles"
    ;;
shortc)
    printf '0123456789' > "$3"
    echo "12 cycles"
    ;;
bytes)
    echo "board 0: loaded $kernel"
    echo "time: $size us"
    ;;
cycles)
    echo "$size cycles"
    ;;
fail)
    echo "board: device /dev/npu0 not found" >&2
    echo "second line" >&2
    exit 1
    ;;
garbage)
    echo "all done, no time today"
    ;;
hang)
    sleep 30 &
    echo "$$ $!" > "$3"
    sleep 30
    ;;
leftover)
    sleep 30 &
    echo "$!" > "$3"
    echo "1.5 ms"
    ;;
rounds)
    cfg=$(grep -m 1 '^config' "$kernel")
    key=$(printf '%s' "$cfg" | cksum | cut -d' ' -f1)
    n=$(($(cat "$3/n-$key" 2>/dev/null || echo 0) + 1))
    echo "$n" >"$3/n-$key"
    echo "$cfg" >>"$3/log"
    if [ "$n" -ge 2 ] && [ -n "$4" ] && printf '%s\n' "$cfg" | grep -q "^config $4"; then
        echo "board: lost the kernel" >&2
        exit 1
    fi
    echo "$((10 * n)) cycles"
    ;;
*)
    echo "board: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
