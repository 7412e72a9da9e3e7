# registry.sh — what the tests of registries share (tuner/search_files.sh,
# space/op_files.sh): the files that count, pass/fail counting, and checks that
# a plug-in's name appears only where it is allowed. Source it in the source
# directory.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# The files that count: the libraries' folders (a CMakeLists.txt, not a build
# directory, not tests), cmake/ and the top CMakeLists.txt.
files=()
for dir in */; do
    dir=${dir%/}
    [ -f "$dir/CMakeLists.txt" ] && [ ! -f "$dir/CMakeCache.txt" ] && [ "$dir" != tests ] || continue
    while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -type f \( -name '*.c' -o -name '*.h' \
        -o -name CMakeLists.txt -o -name '*.cmake' \) | sort)
done
files+=(CMakeLists.txt cmake/*.cmake)

# read_registry FILE: $registry is FILE, $names the names of its X(NAME) lines
# (a failure when there are none).
read_registry() {
    registry=$1
    names=$(sed -n 's/^ *X(\([A-Za-z0-9_]*\)) *\\\{0,1\}$/\1/p' "$registry")
    [ -n "$names" ] && ok || bad "no X(NAME) lines in $registry"
}

# holds FILE REGEX WHAT: a line of FILE matches REGEX; else "FILE does not WHAT".
holds() { if grep -q "$2" "$1" 2>/dev/null; then ok; else bad "$1 does not $3"; fi; }

# only_in WHAT REGEX ALLOWED...: the files matching REGEX are among ALLOWED.
only_in() {
    local what=$1 regex=$2 f
    shift 2
    for f in $(grep -lE -- "$regex" "${files[@]}"); do
        case " $* " in
        *" $f "*) ok ;;
        *) bad "$what appears in $f (allowed: $*)" ;;
        esac
    done
}

# one_line NAME: X(NAME) is one line of the registry and of no other file.
one_line() {
    local count
    only_in "the registry line X($1)" "\bX\($1\)" "$registry"
    count=$(grep -cE "^ *X\($1\)" "$registry")
    [ "$count" -eq 1 ] && ok || bad "X($1) is $count lines of $registry, expected 1"
}

# not_listed NAME: no file lists NAME next to another of the registry's names by hand.
not_listed() {
    local name=$1 other f
    for other in $names; do
        [ "$other" = "$name" ] && continue
        for f in $(grep -lE "\b$name\b[\"' ]*[,|/][\"' ]*\b$other\b" "${files[@]}"); do
            bad "$f lists '$name' and '$other' by hand"
        done
    done
}

finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
