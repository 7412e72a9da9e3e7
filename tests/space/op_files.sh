#!/usr/bin/env bash
# op_files.sh — an op lives in two places only: its own file space/op_NAME.c and
# its line X(NAME) in space/op.c's registry. No other C source or CMake file of the
# tree names it, as sp_op_NAME, op_NAME or the string "NAME": the DSL's declaration,
# --op and the files' op column take it from the registry.
# usage: op_files.sh SOURCE_DIR
cd "${1:?usage: op_files.sh SOURCE_DIR}" || exit 1
. tests/registry.sh
read_registry space/op.c
for name in $names; do
    own=space/op_$name.c
    holds "$own" "const sp_op sp_op_$name\b" "define sp_op_$name"
    holds "$own" "\.name = \"$name\"" "name its op '$name'"
    only_in "sp_op_$name or op_$name" "\b(sp_)?op_$name\b" "$own"
    only_in "the name \"$name\"" "\"$name\"" "$own"
    one_line "$name"
    not_listed "$name"
done
finish
