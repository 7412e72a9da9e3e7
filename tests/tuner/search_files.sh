#!/usr/bin/env bash
# search_files.sh — a search strategy lives in two places only: its own file
# tuner/search_NAME.c and its line X(NAME) in tuner/search.c's registry. Checks
# every registered strategy against the C sources and CMake files of the tree
# (tests, docs and build directories left out).
# usage: search_files.sh SOURCE_DIR
src=${1:?usage: search_files.sh SOURCE_DIR}
registry=tuner/search.c
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

cd "$src" || exit 1
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

names=$(sed -n 's/^ *X(\([A-Za-z0-9_]*\)) *\\\{0,1\}$/\1/p' "$registry")
[ -n "$names" ] && ok || bad "no X(NAME) lines in $registry"

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

for name in $names; do
    own=tuner/search_$name.c
    if grep -q "const tn_strategy tn_strategy_$name\b" "$own" 2>/dev/null; then ok; else
        bad "$own does not define tn_strategy_$name"
    fi
    only_in "tn_strategy_$name or search_$name" "\b(tn_strategy_|search_)$name\b" "$own"
    only_in "the registry line X($name)" "\bX\($name\)" "$registry"
    count=$(grep -cE "^ *X\($name\)" "$registry")
    [ "$count" -eq 1 ] && ok || bad "X($name) is $count lines of $registry, expected 1"
    # a list of names kept by hand: NAME next to another strategy's name
    for other in $names; do
        [ "$other" = "$name" ] && continue
        for f in $(grep -lE "\b$name\b[\"' ]*[,|/][\"' ]*\b$other\b" "${files[@]}"); do
            bad "$f lists '$name' and '$other' by hand"
        done
    done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
