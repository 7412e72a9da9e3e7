# results.cmake — registers the tests of the results library (results/): the
# journal and its resume, the tuning table, picking entries and the C header.
foreach(name test_journal test_table)
  string(REPLACE "test_" "" file ${name})
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/results/${file}.c)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${name} PRIVATE results measure codegen space GSL::gsl)
endforeach()
add_test(NAME journal COMMAND test_journal)
add_test(NAME table COMMAND test_table)
# The exported C header compiled by cc (and run), c++ and clang: skipped where missing.
add_test(NAME table_header_cc COMMAND test_table --header cc)
add_test(NAME table_header_cxx COMMAND test_table --header c++)
add_test(NAME table_header_clang COMMAND test_table --header clang)
set_tests_properties(table_header_cc table_header_cxx table_header_clang
                     PROPERTIES SKIP_RETURN_CODE 77)
