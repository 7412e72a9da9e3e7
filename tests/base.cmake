# base.cmake — registers the tests of the base library (base/): its plumbing,
# and telling apart the files a command reads and writes; included from
# tests/CMakeLists.txt.
foreach(pair test_base:plumbing test_paths:paths)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 name)
  list(GET pair 1 file)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/base/${file}.c)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${name} PRIVATE base OpenMP::OpenMP_C m)
endforeach()
add_test(NAME base COMMAND test_base)
add_test(NAME paths COMMAND test_paths)
