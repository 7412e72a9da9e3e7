# base.cmake — registers the test of the base library (base/); included from
# tests/CMakeLists.txt.
add_executable(test_base ${CMAKE_CURRENT_LIST_DIR}/test_base.c)
target_include_directories(test_base PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_base PRIVATE base OpenMP::OpenMP_C)
add_test(NAME base COMMAND test_base)
