#!/usr/bin/env bash
# search_files.sh — a search strategy lives in two places only: its own file
# tuner/search_NAME.c and its line X(NAME) in tuner/search.c's registry. Checks
# every registered strategy against the C sources and CMake files of the tree
# (tests, docs and build directories left out).
# usage: search_files.sh SOURCE_DIR
cd "${1:?usage: search_files.sh SOURCE_DIR}" || exit 1
. tests/registry.sh
read_registry tuner/search.c
for name in $names; do
    own=tuner/search_$name.c
    holds "$own" "const tn_strategy tn_strategy_$name\b" "define tn_strategy_$name"
    only_in "tn_strategy_$name or search_$name" "\b(tn_strategy_|search_)$name\b" "$own"
    one_line "$name"
    not_listed "$name"
done
finish
