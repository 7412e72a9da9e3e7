# library.cmake — what a library shows the others. npu_public(TARGET PREFIX p... HEADERS
# h...): TARGET's public include directory holds only links to its public headers (in the
# build tree), its own folder with its internal headers stays private, and it compiles with
# hidden visibility, so that only what the public headers declare (inside their `#pragma
# GCC visibility push(default)`) is exported. npu_symbols_manifest(FILE) lists each such
# library with its prefixes and headers for tests/symbols.sh, which checks the exports.
function(npu_public target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PREFIX;HEADERS")
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/include)
  file(MAKE_DIRECTORY ${dir})
  set(headers)
  foreach(h IN LISTS arg_HEADERS)
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/${h} ${dir}/${h} SYMBOLIC)
    list(APPEND headers ${CMAKE_CURRENT_SOURCE_DIR}/${h})
  endforeach()
  target_include_directories(${target} PUBLIC ${dir} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  set_target_properties(${target} PROPERTIES C_VISIBILITY_PRESET hidden
                        NPU_PREFIX "${arg_PREFIX}" NPU_HEADERS "${headers}")
  set_property(GLOBAL APPEND PROPERTY NPU_LIBRARIES ${target})
endfunction()

# One line per library: its archive, its prefixes (blank-separated), its public headers
# (each a field; fields separated by tabs).
function(npu_symbols_manifest out)
  get_property(libs GLOBAL PROPERTY NPU_LIBRARIES)
  set(content "")
  foreach(t IN LISTS libs)
    get_target_property(prefix ${t} NPU_PREFIX)
    get_target_property(headers ${t} NPU_HEADERS)
    list(JOIN prefix " " prefix)
    list(JOIN headers "\t" headers)
    string(APPEND content "$<TARGET_FILE:${t}>\t${prefix}\t${headers}\n")
  endforeach()
  file(GENERATE OUTPUT ${out} CONTENT "${content}")
endfunction()
