#!/bin/sh
# board.sh — a stand-in board for the "command" backend's tests: runs a kernel
# file one way or another (MODE) and prints a time, or fails as asked.
# Usage: board.sh MODE KERNEL [PIDFILE]
#   sim       npu-tune sim KERNEL --format csv (binary: $NPU_TUNE_BIN); prints "N cycles"
#   bytes     prints the kernel's size as microseconds, after a line of chatter
#   cycles    prints the kernel's size as "N cycles"
#   fail      a message on stderr, exit 1
#   garbage   prints no number
#   hang      writes its pid and a background child's to PIDFILE, sleeps
#   leftover  prints a time, leaves a child (pid in PIDFILE) holding stdout
mode=$1
kernel=$2
[ -r "$kernel" ] || { echo "board: cannot read kernel '$kernel'" >&2; exit 2; }
size=$(wc -c < "$kernel" | tr -d ' ')
case $mode in
sim)
    "$NPU_TUNE_BIN" sim "$kernel" --format csv | awk -F, 'NR == 2 { print $1 " cycles" }'
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
*)
    echo "board: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
