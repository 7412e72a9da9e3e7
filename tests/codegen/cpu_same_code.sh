#!/usr/bin/env bash
# cpu_same_code.sh — whether the host kernels this build generates compile to the same
# machine code as those of another revision's generator (tests/codegen/cpu_emit.c's configs).
# usage: cpu_same_code.sh EMIT REV SRC [WORKDIR]
#   EMIT  this build's cpu_emit (tests/codegen/cpu_emit.c); REV a git revision of the repository SRC,
#   whose codegen and space libraries are built in WORKDIR (default: a temporary one).
# Each kernel is compiled by both with `${CC:-cc} -O3 -march=M -fopenmp -fPIC -c` for
# M = native, x86-64-v3 (AVX2, F16C) and x86-64 (the portable path), disassembled with
# `objdump -d --no-show-raw-insn`, and compared. Exit 0 iff every object is the same.
set -euo pipefail
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    echo "usage: cpu_same_code.sh EMIT REV SRC [WORKDIR]" >&2
    exit 2
fi
emit=$(realpath "$1") rev=$2 src=$(realpath "$3")
work=${4:-}
if [ -z "$work" ]; then
    work=$(mktemp -d /tmp/nt_same_code_XXXXXX)
    trap 'rm -rf "$work"' EXIT
fi
cc=${CC:-cc}

# the reference generator: REV's libraries, with this tree's emitter
rm -rf "$work/ref-src" "$work/ref" "$work/new" "$work/obj"
mkdir -p "$work/ref-src" "$work/ref" "$work/new" "$work/obj"
git -C "$src" archive "$rev" | tar -x -C "$work/ref-src"
cmake -S "$work/ref-src" -B "$work/ref-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$work/ref-build.log"
cmake --build "$work/ref-build" --target codegen space >> "$work/ref-build.log"
# (revisions with the base library link it after space, which needs it)
base=()
[ ! -f "$work/ref-build/base/libbase.a" ] || base=("$work/ref-build/base/libbase.a")
$cc -std=c11 -O1 -I"$work/ref-src/codegen" -I"$work/ref-src/space" "$src/tests/codegen/cpu_emit.c" \
    "$work/ref-build/codegen/libcodegen.a" "$work/ref-build/space/libspace.a" "${base[@]}" \
    -fopenmp -lm -o "$work/ref-emit"
"$work/ref-emit" "$work/ref" > "$work/ref.txt"
"$emit" "$work/new" > "$work/new.txt"
if ! diff -q "$work/ref.txt" "$work/new.txt" > /dev/null; then
    echo "cpu_same_code: the emitters' config lists differ" >&2
    exit 1
fi

# one job per kernel and -march: both objects disassembled (file name line dropped)
compare() { # NAME MARCH
    local o="$work/obj/$1.$2"
    for side in ref new; do
        $cc -O3 -march="$2" -fopenmp -fPIC -c "$work/$side/$1.c" -o "$o.$side.o"
        objdump -d --no-show-raw-insn "$o.$side.o" | tail -n +3 > "$o.$side.s"
    done
    if cmp -s "$o.ref.s" "$o.new.s"; then
        echo same > "$o.verdict"
    else
        echo differs > "$o.verdict"
    fi
}
export -f compare
export work cc
cut -d' ' -f1 "$work/new.txt" | while read -r name; do
    printf '%s native\n%s x86-64-v3\n%s x86-64\n' "$name" "$name" "$name"
done | xargs -P "$(nproc)" -n 2 bash -c 'compare "$0" "$1"'

same=0 differs=0 insns=0
for v in "$work"/obj/*.verdict; do
    base=${v%.verdict}
    insns=$((insns + $(grep -c $'^ *[0-9a-f]*:\t' "$base.new.s")))
    if [ "$(cat "$v")" = same ]; then
        same=$((same + 1))
    else
        differs=$((differs + 1))
        name=$(basename "$base")
        echo "$name ($(grep "^${name%%.*} " "$work/new.txt" | cut -d' ' -f2-)) differs:"
        diff "$base.ref.s" "$base.new.s" | head -20
    fi
done
echo "cpu_same_code: $same of $((same + differs)) objects the same as $rev's" \
     "($insns instructions), $differs differ"
[ "$differs" = 0 ]
