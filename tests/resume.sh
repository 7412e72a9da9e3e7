#!/usr/bin/env bash
# resume.sh — kill -9 a tuning run at several points, resume it until it
# finishes, and compare with an uninterrupted run: same table, same journal
# rows, nothing measured twice. Usage: resume.sh PATH/TO/npu-tune
set -u
bin=$1
. "$(dirname "$0")/lib.sh"

script() {
    cat >"$1/r.lua" <<'LUA'
target "ascend910"
matmul { name = "r", shapes = { {512, 512, 512}, {300, 200, 400} } }
space {
  m = multiples(16, 64), n = multiples(16, 64), k = multiples(16, 64),
  double_buffer = { false, true },
}
tune { search = "random", budget = 48, seed = 7, results = "out/r.csv", table = "out/r-table.csv" }
LUA
}

mkdir -p "$work/a" "$work/b"
script "$work/a"
script "$work/b"
(cd "$work/a" && "$bin" --quiet r.lua >/dev/null) || bad "uninterrupted run failed"

# Kill at growing delays; each resumed run continues from the journal.
kills=0
for delay in 0.05 0.2 0.1 0.4 0.3 0.6 0.8 1.2 1.6 2.4 3.2 4.8; do
    (cd "$work/b" && exec "$bin" --quiet r.lua >/dev/null 2>"$work/b/err") &
    pid=$!
    sleep "$delay"
    if kill -9 "$pid" 2>/dev/null; then
        kills=$((kills + 1))
        wait "$pid" 2>/dev/null
    else
        wait "$pid"
        rc=$?
        [ "$rc" -eq 0 ] || bad "a resumed run failed ($rc): $(cat "$work/b/err")"
        break
    fi
done
# Finish (also when every attempt above was killed).
(cd "$work/b" && "$bin" --quiet r.lua >/dev/null 2>"$work/b/err") || bad "final resume failed: $(cat "$work/b/err")"
echo "killed $kills times"
if [ "$kills" -ge 2 ]; then ok; else bad "the run finished before it could be killed twice"; fi

if cmp -s "$work/a/out/r-table.csv" "$work/b/out/r-table.csv"; then ok; else
    bad "tables differ:"; diff "$work/a/out/r-table.csv" "$work/b/out/r-table.csv" >&2
fi
# the same measurements, each once (key = problem .. split)
keys() { tail -n +2 "$1" | cut -d, -f1-14 | sort; }
dups=$(keys "$work/b/out/r.csv" | uniq -d | wc -l)
if [ "$dups" -eq 0 ]; then ok; else bad "$dups candidates measured twice"; fi
if diff <(tail -n +2 "$work/a/out/r.csv" | sort) <(tail -n +2 "$work/b/out/r.csv" | sort) >/dev/null; then ok; else
    bad "journals hold different rows"
fi
if [ -z "$(ls "$work/b/out" | grep tmp)" ]; then ok; else bad "temporary files left behind"; fi

# A journal from another target refuses to resume.
sed -i 's/target "ascend910"/target { base = "ascend910", cores = 8 }/' "$work/b/r.lua"
(cd "$work/b" && "$bin" --quiet r.lua >/dev/null 2>"$work/b/err")
rc=$?
if [ "$rc" -eq 1 ] && grep -q "out/r.csv was written for target" "$work/b/err"; then ok; else
    bad "foreign target resumed (exit $rc): $(cat "$work/b/err")"
fi

finish
