#!/usr/bin/env bash
# symbols.sh — each library exports only what its public headers declare, all of it
# under its prefix, and hides the rest (cmake/library.cmake). Usage: symbols.sh READELF
# MANIFEST, the manifest a line per library: archive, prefixes, public headers (tabs).
set -u
readelf=$1 manifest=$2
[ -x "$readelf" ] || { echo "skipped: no readelf ('$readelf')"; exit 77; }
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# named WORD FILES...: WORD appears as a whole word in one of FILES.
named() { local w=$1; shift; grep -qw -- "$w" "$@"; }

while IFS=$'\t' read -r -a f; do
    lib=${f[0]} prefixes=${f[1]} headers=("${f[@]:2}")
    names=$(printf '%s ' "${headers[@]##*/}")
    syms=$("$readelf" -Ws --wide "$lib") || { bad "$lib: readelf cannot read it"; continue; }
    exported=0
    # defined (not UND) global and weak symbols: visibility and name; names starting
    # with __ or . belong to the compiler, OpenMP and the sanitizers
    while read -r vis name; do
        case $name in __* | .*) continue ;; esac
        if [ "$vis" = HIDDEN ] || [ "$vis" = INTERNAL ]; then
            named "$name" "${headers[@]}" && bad "${lib##*/}: hides '$name', which ${names% } declares"
            continue
        fi
        exported=$((exported + 1))
        prefixed=no
        for p in $prefixes; do
            case $name in "$p"*) prefixed=yes ;; esac
        done
        [ $prefixed = yes ] || bad "${lib##*/}: exports '$name', outside its prefix ($prefixes)"
        named "$name" "${headers[@]}" || bad "${lib##*/}: exports '$name', which ${names% } does not declare"
    done < <(printf '%s\n' "$syms" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && NF >= 8 { print $6, $8 }')
    [ $exported -gt 0 ] || bad "${lib##*/}: exports nothing (readelf found no defined global symbol)"
done <"$manifest"
[ $fail -eq 0 ] || { echo "$fail symbol(s) out of place" >&2; exit 1; }
