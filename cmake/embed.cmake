# embed.cmake — turns a text file into a C string constant at build time.
# Script: cmake -DIN=file -DOUT=file.c -DSYMBOL=name -P embed.cmake; included: npu_embed().
if(NOT CMAKE_SCRIPT_MODE_FILE)
  # npu_embed(TARGET FILE SYMBOL): compiles FILE into TARGET as `const char SYMBOL[]`
  # (NUL-terminated) and `const size_t SYMBOL_len`, regenerated when FILE changes.
  function(npu_embed target file symbol)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/embed_${symbol}.c)
    get_filename_component(name ${file} NAME)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
              -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
      DEPENDS ${file} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
      COMMENT "Embedding ${name}")
    target_sources(${target} PRIVATE ${out})
  endfunction()
  return()
endif()
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "/* Generated from ${IN}; do not edit. */\n#include <stddef.h>\nconst char ${SYMBOL}[] = {\n${bytes}0x00};\nconst size_t ${SYMBOL}_len = sizeof ${SYMBOL} - 1;\n")
