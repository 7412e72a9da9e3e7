# lib.sh — what the shell tests share: a scratch directory, pass/fail counting
# and checks of npu-tune's exit code and output. Source it after setting $bin.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# run CODE ARGS...: runs npu-tune in $work and checks the exit code; leaves
# stdout in $out and stderr in $err.
run() {
    local want=$1
    shift
    (cd "$work" && "$bin" "$@" >"$work/.out" 2>"$work/.err")
    local got=$?
    out=$(cat "$work/.out")
    err=$(cat "$work/.err")
    if [ "$got" -eq "$want" ]; then ok; else bad "npu-tune $* exited $got, expected $want; stderr: $err"; fi
}

same() { if [ "$2" == "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }
has() { case "$2" in *"$3"*) ok ;; *) bad "$1: '$3' not in: $2" ;; esac; }
# same_file WHAT FILE WANT: FILE holds WANT's bytes; else says how they differ.
same_file() {
    if cmp -s "$2" "$3"; then ok; else bad "$1: $2 is not $3: $(diff "$3" "$2" 2>&1 | head -n 8)"; fi
}
# absent WHAT PATH: nothing is at PATH.
absent() { if [ -e "$2" ] || [ -L "$2" ]; then bad "$1: $2 exists"; else ok; fi; }

# skip WHY: ends the test as skipped (exit 77: CTest's SKIP_RETURN_CODE for
# these tests shows it as "Not Run (Skipped)", not as passed).
skip() {
    echo "skipped: $*"
    exit 77
}

# Prints the closing count line and sets the exit status.
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
